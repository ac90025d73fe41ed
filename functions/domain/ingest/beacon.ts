/**
 * The beacon routes' own steps: a request as the HTTP edge received it, a
 * JSON body (POST /events, /append) or an image query string (/simple.gif,
 * /noscript.gif), decoded into one Incoming row, then the shared steps
 * (collect.ts). The order of parse, DNT and validation is spec part 4's: a
 * JSON body must parse as one object before DNT may skip it (rule 5); an image
 * request is skipped under DNT before it is validated.
 */
import { drop, invalidInput, OVERSIZE } from './drop.ts';
import type { Incoming } from './incoming.ts';
import { collectDntJson, collectDntQuery, parseJsonBody, parseJsonPayload, parseQueryPayload, type CollectorPayload, type QueryParams, type Source } from './payload.ts';
import { Steps, type Step } from './pipeline.ts';
import { COLLECT_STEPS } from './collect.ts';

/** A JSON beacon's body is refused (and counted `invalid`) past this many bytes. */
export const MAX_BEACON_BODY = 64 * 1024;

/** What every beacon request carries besides its payload. */
export interface BeaconRequest {
  /** Lowercased names. */
  headers: Readonly<Record<string, string>>;
  ip: string;
  /** ApiRequest.servedOrigin, for automatic verification. */
  servedOrigin: string | undefined;
  /** `/append`. */
  append: boolean;
}

export interface JsonBeaconRequest extends BeaconRequest {
  body: Buffer;
}

export interface ImageBeaconRequest extends BeaconRequest {
  query: QueryParams;
  /** /noscript.gif: the page comes from Referer. */
  fromReferer: boolean;
}

interface JsonBeacon {
  request: JsonBeaconRequest;
  body: Source;
}

const doNotTrack = (headers: BeaconRequest['headers']) => headers.dnt === '1' || headers['x-do-not-track'] === '1';

const incoming = (payload: CollectorPayload, request: BeaconRequest): Incoming => ({
  payload,
  append: request.append,
  ip: request.ip,
  headerUa: request.headers['user-agent'] ?? '',
  servedOrigin: request.servedOrigin,
});

/**
 * Fills what the image request leaves out from the page URL in Referer:
 * hostname, path, https and query, never the acquisition referrer. Explicit
 * parameters win even when empty.
 */
export function withRefererPage(params: QueryParams, referer: string | undefined): QueryParams {
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

/** Parse: one JSON object within MAX_BEACON_BODY, whatever the Content-Type; anything else is malformed, refused even under DNT. */
const parseJson: Step<JsonBeaconRequest, JsonBeacon> = {
  name: 'parse',
  run(request) {
    if (request.body.length > MAX_BEACON_BODY) return OVERSIZE;
    const json = parseJsonBody(request.body.toString('utf8'));
    return json.ok ? { request, body: json.body } : invalidInput(json.error);
  },
};

/** DNT, unless the beacon opted back in (`collect-dnt`). */
const jsonDnt: Step<JsonBeacon, JsonBeacon> = {
  name: 'dnt',
  run: (beacon) => (doNotTrack(beacon.request.headers) && !collectDntJson(beacon.body) ? drop('dnt') : beacon),
};

const validateJson: Step<JsonBeacon, Incoming> = {
  name: 'validate',
  run({ request, body }) {
    const parsed = parseJsonPayload(body);
    return parsed.ok ? incoming(parsed.payload, request) : invalidInput(parsed.error);
  },
};

/** DNT before validation on image routes, unless the page opted in. */
const imageDnt: Step<ImageBeaconRequest, ImageBeaconRequest> = {
  name: 'dnt',
  run: (request) => (doNotTrack(request.headers) && !collectDntQuery(request.query) ? drop('dnt') : request),
};

const validateImage: Step<ImageBeaconRequest, Incoming> = {
  name: 'validate',
  run(request) {
    const parsed = parseQueryPayload(request.fromReferer ? withRefererPage(request.query, request.headers.referer) : request.query);
    return parsed.ok ? incoming(parsed.payload, request) : invalidInput(parsed.error);
  },
};

/** An outbound click the redirect `/r` follows: its site (normalized) and the target's host. */
export interface OutboundClickRequest extends BeaconRequest {
  hostname: string;
  target: string;
}

/**
 * `/r`'s row: an `outbound` event naming the target's host in its metadata, on the page in Referer
 * when there is one (its path and https), skipped under DNT.
 */
const decodeOutbound: Step<OutboundClickRequest, Incoming> = {
  name: 'validate',
  run(request) {
    if (doNotTrack(request.headers)) return drop('dnt');
    const params: Record<string, string> = { hostname: request.hostname, type: 'event', event: 'outbound', metadata: JSON.stringify({ host: request.target }) };
    // The page the link was on, when Referer names one of this site's own (another site's page is no page of it).
    const page = withRefererPage({}, request.headers.referer);
    if (page.hostname === request.hostname && page.path !== undefined) Object.assign(params, { path: page.path, https: page.https });
    const parsed = parseQueryPayload(params);
    return parsed.ok ? incoming(parsed.payload, request) : invalidInput(parsed.error);
  },
};

/** The outbound redirect's steps: its row, then the shared ones. */
export const OUTBOUND_CLICK = Steps.from<OutboundClickRequest>().then(decodeOutbound).concat(COLLECT_STEPS);

/** The JSON routes' decode steps. */
export const JSON_BEACON_DECODE = Steps.from<JsonBeaconRequest>().then(parseJson).then(jsonDnt).then(validateJson);
/** The image routes' decode steps (all a HEAD request runs: it is no beacon). */
export const IMAGE_BEACON_DECODE = Steps.from<ImageBeaconRequest>().then(imageDnt).then(validateImage);

export const JSON_BEACON = JSON_BEACON_DECODE.concat(COLLECT_STEPS);
export const IMAGE_BEACON = IMAGE_BEACON_DECODE.concat(COLLECT_STEPS);
