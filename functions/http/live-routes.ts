/**
 * The live stream's routes of the route table (issue 39), in the `live`
 * group: the stream itself (Server-Sent Events) and its tickets. Both take
 * the owner's ID token only; a management key is no credential here.
 * Listed by functions/http/routes.ts.
 */
import { z } from 'zod';
import { Timestamp } from './schemas.ts';
import { invalidInput, refusals, reportQuery, type RouteDef } from './route-def.ts';
import { LiveStreamLimitError, NotAvailableOnStoreError, SignInRequiredError, UnknownSiteError, UnverifiedOwnerError } from '#domain/errors.ts';
import { INVALID_FILTER } from '#domain/reports/query.ts';

const LiveTicket = z
  .object({ ticket: z.string().describe('Pass as `?ticket=` to GET /api/live/{hostname} once, within a minute'), expires_at: Timestamp })
  .meta({ id: 'LiveTicket' });

const STREAM = [
  'Server-Sent Events. First `retry: 5000`, then `history`: the last 15 minutes per minute, [{t, visitors, pageviews}] (t: the minute, Unix seconds);',
  'then `update` at once and every 5 s: {t, visitors_5m, pages, sources, countries, minutes}: distinct visitors of the last 5 minutes, the top 10 pages,',
  'sources and countries of the last 30 minutes by distinct visitors ([{name, visitors}]), and the previous and current minute as `history` counts them.',
  'A `: heartbeat` comment every 15 s. After 14 minutes 30 seconds an `end` event closes the stream: open a new one (with a new ticket).',
].join(' ');

const owner = [SignInRequiredError, UnverifiedOwnerError, UnknownSiteError] as const;

export const liveRoutes: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/api/live/{hostname}/ticket',
    group: 'live',
    auth: 'user',
    summary:
      'A single-use ticket for one live stream of the site, good for 60 seconds: for EventSource, which cannot send an Authorization header. ' +
      'Refused (429) while the account holds its 5 open streams.',
    responses: { 201: { description: 'ticket', schema: LiveTicket }, ...refusals(...owner, LiveStreamLimitError) },
  },
  {
    method: 'GET',
    path: '/api/live/{hostname}',
    group: 'live',
    auth: 'user',
    summary:
      'The site’s live visitor stream (owner ID token in the Authorization header, or a ticket). At most 5 open streams per account. ' +
      'A stream ends after at most 15 minutes; clients reconnect (EventSource does by itself with a header; with a ticket, get a new ticket first).',
    query: {
      ticket: 'A ticket from POST /api/live/{hostname}/ticket, instead of the Authorization header; it works once',
      filter: `Optional: the report filter every number of the stream follows (as the reports'). ${reportQuery.filter}`,
    },
    responses: { 200: { description: STREAM, contentType: 'text/event-stream' }, ...refusals(invalidInput([INVALID_FILTER]), ...owner, LiveStreamLimitError, NotAvailableOnStoreError) },
  },
];
