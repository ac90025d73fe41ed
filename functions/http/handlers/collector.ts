/**
 * Route group `collector` (spec part 4 "Collector and health"): the tracker
 * script and the beacon routes. Answers are plain text or a GIF, never JSON,
 * and never a 5xx for anything a client sends.
 */
import type { Drop, DropReason } from '#domain/ingest/drop.ts';
import { StoreUnavailableError } from '#domain/errors.ts';
import { collectDntJson, collectDntQuery, parseJsonBody, parseJsonPayload, parseQueryPayload, type CollectorPayload, type QueryParams } from '#domain/ingest/payload.ts';
import { createGroupHandler, type ApiRequest as AnyApiRequest, type ApiResponse } from '../api.ts';
import { collect, type CollectServices } from '#domain/ingest/collect.ts';
import type { Services } from '#platform/services.ts';

/** The collector's steps, its drop counter and the built tracker script. */
export type CollectorServices = CollectServices & Pick<Services, 'collectorDrops' | 'trackerScript'>;
type ApiRequest = AnyApiRequest<CollectorServices>;

export const MAX_COLLECTOR_BODY = 64 * 1024;

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
const notTaken = (outcome: Drop | null) => outcome !== null && (outcome.drop === 'queue_full' || outcome.drop === 'enqueue_failed');

const gif = (): ApiResponse => ({
  statusCode: 200,
  headers: { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store, max-age=0', ...COLLECTOR_CORS },
  body: GIF.toString('base64'),
  isBase64Encoded: true,
});

const doNotTrack = (req: ApiRequest) => req.headers.dnt === '1' || req.headers['x-do-not-track'] === '1';

/** A beacon refused before its payload was read (DNT, invalid): counted without a hostname. */
const refused = (req: ApiRequest, reason: DropReason) => req.services.collectorDrops.dropped(reason, null);

/** The steps after validation; a drop is counted with the hostname the payload sent. */
async function record(req: ApiRequest, payload: CollectorPayload, append: boolean): Promise<Drop | null> {
  const outcome = await collect(req.services, {
    payload,
    append,
    ip: req.sourceIp,
    headerUa: req.headers['user-agent'] ?? '',
    servedOrigin: req.servedOrigin,
  });
  if (outcome) req.services.collectorDrops.dropped(outcome.drop, payload.hostname);
  return outcome;
}

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

/** JSON routes: the body must parse as one object before DNT may skip it (spec rule 5); Content-Type is ignored. */
function jsonBeacon(append: boolean) {
  return async (req: ApiRequest): Promise<ApiResponse> => {
    if (req.body.length > MAX_COLLECTOR_BODY) {
      refused(req, 'invalid');
      return tooLarge();
    }
    const json = parseJsonBody(req.body.toString('utf8'));
    if (!json.ok) {
      refused(req, 'invalid');
      return plain(400, json.error);
    }
    if (doNotTrack(req) && !collectDntJson(json.body)) {
      refused(req, 'dnt');
      return ok();
    }
    const parsed = parseJsonPayload(json.body);
    if (!parsed.ok) {
      refused(req, 'invalid');
      return plain(400, parsed.error);
    }
    if (notTaken(await record(req, parsed.payload, append))) return unavailable();
    return ok();
  };
}

/**
 * Fills what the image request leaves out from the page URL in Referer:
 * hostname, path, https and query, never the acquisition referrer. Explicit
 * parameters win even when empty.
 */
function withRefererPage(params: QueryParams, referer: string | undefined): QueryParams {
  if (!referer) return params;
  let page: URL;
  try {
    page = new URL(referer);
  } catch {
    return params;
  }
  const derived: Record<string, string> = { ...params };
  const fill = (name: string, value: string) => {
    if (!Object.hasOwn(derived, name)) derived[name] = value;
  };
  fill('hostname', page.hostname);
  fill('path', page.pathname);
  fill('https', String(page.protocol === 'https:'));
  fill('query', page.search);
  return derived;
}

function imageBeacon(fromReferer: boolean) {
  return async (req: ApiRequest): Promise<ApiResponse> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(400, 'method not allowed');
    let params: QueryParams = req.query;
    // DNT before validation on image routes, unless the page opted in. A HEAD request is no beacon: nothing is counted for it.
    if (doNotTrack(req) && !collectDntQuery(params)) {
      if (req.method === 'GET') refused(req, 'dnt');
      return gif();
    }
    if (fromReferer) params = withRefererPage(params, req.headers.referer);
    const parsed = parseQueryPayload(params);
    if (!parsed.ok) {
      if (req.method === 'GET') refused(req, 'invalid');
      return plain(400, parsed.error);
    }
    if (req.method === 'GET' && notTaken(await record(req, parsed.payload, false))) return unavailable();
    return gif();
  };
}

export const handler = createGroupHandler<CollectorServices>(
  {
    'ANY /latest.js': latestJs,
    'ANY /simple.gif': imageBeacon(false),
    'ANY /noscript.gif': imageBeacon(true),
    'POST /events': jsonBeacon(false),
    'POST /append': jsonBeacon(true),
  },
  { tooLarge, requestLogLevel: 'debug' },
);

/** The group's Lambda handler over what its composition root built (functions/http/lambda/collector.ts). */
export const createCollectorHandler = (services: CollectorServices) => handler.lambda(services);
