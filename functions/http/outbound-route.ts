/** The outbound redirect's entry in the route table (issue 39), in the collector group beside the beacons. */
import { REDIRECT_ERRORS } from '#domain/ingest/outbound.ts';
import type { ResponseDef, RouteDef } from './route-def.ts';

/** `/r`: its answers in the collector's plain text (`text` makes such an answer). */
export const outboundRoute = (text: (description: string) => ResponseDef): RouteDef => ({
  method: 'ANY',
  path: '/r',
  group: 'collector',
  auth: 'none',
  summary:
    'Outbound redirect (GET, HEAD): 302 to `u` only when its host is `hostname`, a subdomain of it, or one of the verified site’s `redirect_hosts`; ' +
    'anything else 400, never an open redirect. For a verified site a GET records an `outbound` event (metadata `{host}`), as a beacon would (DNT honoured, bots not counted).',
  query: { hostname: 'Required: the site', u: 'Required: the absolute http(s) URL to go to, at most 2,048 bytes' },
  responses: {
    302: { description: 'to the target', headers: { Location: 'the target URL, as parsed' } },
    400: text(`${REDIRECT_ERRORS.join('; ')}; method not allowed`),
  },
});
