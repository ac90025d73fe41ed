/**
 * Route group `collector` (spec part 4 "Collector and health"): the tracker
 * script, the beacon routes and the outbound redirect `/r`. Answers are plain text or a GIF, never JSON,
 * and never a 5xx for anything a client sends.
 */
import { isDrop } from '#domain/ingest/drop.ts';
import { StoreUnavailableError } from '#domain/errors.ts';
import { IMAGE_BEACON, IMAGE_BEACON_DECODE, JSON_BEACON, OUTBOUND_CLICK } from '#domain/ingest/beacon.ts';
import { redirectTarget, REDIRECT_ERRORS } from '#domain/ingest/outbound.ts';
import { findSite } from '#domain/site-lookup.ts';
import { isVerified } from '#domain/site.ts';
import { runPipeline, uncounted } from '#domain/ingest/pipeline.ts';
import type { CollectServices } from '#domain/ingest/services.ts';
import type { IngestMetrics } from '#ports/ingest-metrics.ts';
import { createGroupHandler, type ApiRequest as AnyApiRequest, type ApiResponse } from '../api.ts';
import type { Services } from '#platform/services.ts';

/** The ingest steps' services, the port their drops are counted through (and steps timed, where they are) and the built tracker script. */
export type CollectorServices = CollectServices & { collectorDrops: IngestMetrics } & Pick<Services, 'trackerScript'>;
type ApiRequest = AnyApiRequest<CollectorServices>;

const COLLECTOR_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type',
  'Access-Control-Max-Age': '86400',
};

/** The smallest transparent GIF. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

const plain = (statusCode: number, body: string, headers: Record<string, string> = {}): ApiResponse => ({
  statusCode,
  headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...COLLECTOR_CORS, ...headers },
  body,
});

/** The answer to most beacons, written out: no spreads on the hot path (each answer is its own object: the edge adds Content-Length). */
const ok = (): ApiResponse => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/plain; charset=utf-8',
    'Cache-Control': 'no-store',
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': 'Content-Type',
    'Access-Control-Max-Age': '86400',
  },
  body: 'ok',
});

const tooLarge = () => plain(413, 'payload too large');

/** The row could not be taken (queue full, journal write failed): never a 200 for it. */
const unavailable = () => plain(503, StoreUnavailableError.text, { 'Retry-After': String(StoreUnavailableError.retryAfterSeconds) });

/**
 * The answer a dropped beacon gets instead of the route's own: a malformed one
 * is refused (413 over the size bound, else 400 saying why), and one whose row
 * could not be taken answered 503. Null for a stored beacon and any other drop.
 */
function refusal(outcome: unknown): ApiResponse | null {
  if (!isDrop(outcome)) return null;
  if (outcome.oversize) return tooLarge();
  if (outcome.error !== undefined) return plain(400, outcome.error);
  if (outcome.drop === 'queue_full' || outcome.drop === 'enqueue_failed') return unavailable();
  return null;
}

const gif = (): ApiResponse => ({
  statusCode: 200,
  headers: { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store, max-age=0', ...COLLECTOR_CORS },
  body: GIF.toString('base64'),
  isBase64Encoded: true,
});

async function latestJs(req: ApiRequest): Promise<ApiResponse> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(400, 'method not allowed');
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=300, stale-while-revalidate=3600',
      ...COLLECTOR_CORS,
    },
    body: req.services.trackerScript,
  };
}

/** JSON routes: one object, Content-Type ignored (domain/ingest/beacon.ts). */
function jsonBeacon(append: boolean) {
  return async (req: ApiRequest): Promise<ApiResponse> => {
    const request = { headers: req.headers, ip: req.sourceIp, servedOrigin: req.servedOrigin, append, body: req.body };
    const outcome = await runPipeline(request, JSON_BEACON, req.services.collectorDrops, req.services);
    return refusal(outcome) ?? ok();
  };
}

/** Image routes: GET is a beacon; HEAD is answered the same without being one (decoded only, nothing counted). */
function imageBeacon(fromReferer: boolean) {
  return async (req: ApiRequest): Promise<ApiResponse> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(400, 'method not allowed');
    const request = { headers: req.headers, ip: req.sourceIp, servedOrigin: req.servedOrigin, append: false, query: req.query, fromReferer };
    const outcome =
      req.method === 'GET'
        ? await runPipeline(request, IMAGE_BEACON, req.services.collectorDrops, req.services)
        : await runPipeline(request, IMAGE_BEACON_DECODE, uncounted, req.services);
    return refusal(outcome) ?? gif();
  };
}

/**
 * `GET /r?hostname=H&u=URL` (issue 39): a 302 to the target only when its host is H's own, a
 * subdomain of it, or one of a verified site's redirect_hosts (else 400, never an open
 * redirect); for a verified site, an `outbound` event naming the target's host goes through the
 * collector's steps first (DNT, bots and the rest as for any beacon). An unknown or unverified
 * site redirects to its own host only and records nothing.
 */
async function outboundRedirect(req: ApiRequest): Promise<ApiResponse> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(400, 'method not allowed');
  const named = req.services.collectorCaches.hostnames(req.query.hostname ?? '');
  if (!named.ok) return plain(400, REDIRECT_ERRORS[0]);
  const site = await findSite(req.services, named.hostname).catch(() => null);
  const verified = site !== null && isVerified(site);
  const target = redirectTarget(req.query.u, named.hostname, verified ? (site.redirect_hosts ?? []) : []);
  if (!target.ok) return plain(400, target.error);
  if (verified && req.method === 'GET') {
    const request = { headers: req.headers, ip: req.sourceIp, servedOrigin: req.servedOrigin, append: false, hostname: named.hostname, target: target.host };
    const outcome = await runPipeline(request, OUTBOUND_CLICK, req.services.collectorDrops, req.services);
    if (isDrop(outcome) && (outcome.drop === 'queue_full' || outcome.drop === 'enqueue_failed')) req.services.log.warn('outbound click not recorded', { drop: outcome.drop });
  }
  return { statusCode: 302, headers: { Location: target.url, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer-when-downgrade' }, body: '' };
}

export const handler = createGroupHandler<CollectorServices>(
  {
    'ANY /r': outboundRedirect,
    'ANY /latest.js': latestJs,
    'ANY /simple.gif': imageBeacon(false),
    'ANY /noscript.gif': imageBeacon(true),
    'POST /events': jsonBeacon(false),
    'POST /append': jsonBeacon(true),
  },
  { tooLarge, requestLogLevel: 'debug' },
);

/** The group's Lambda handler over what its composition root built (functions/aws/http/collector.ts). */
export const createCollectorHandler = (services: CollectorServices) => handler.lambda(services);
