/**
 * The collector payload (spec part 2, DESIGN.md §4 "Collector"): one reader for
 * JSON bodies and image query strings, with the bounds of DESIGN.md. A
 * violation names its field; unknown fields are ignored.
 */
/**
 * `append` lets the tracker's image fallback carry an append through /simple.gif;
 * `error` is a script's report of its own failure (accepted, never stored: see event-row.ts).
 */
export type PayloadType = 'pageview' | 'event' | 'append' | 'error';
const PAYLOAD_TYPES: ReadonlySet<string> = new Set<PayloadType>(['pageview', 'event', 'append', 'error']);
export type Source = Record<string, unknown>;
/** An image route's query: name → value, the last of a repeated name winning (functions/http/query-string.ts). */
export type QueryParams = Readonly<Record<string, string>>;

export interface CollectorPayload {
  hostname: string;
  type: PayloadType;
  event: string | null;
  path: string;
  query: string | null;
  referrer: string | null;
  metadata: Record<string, string | number | boolean> | null;
  id: string | null;
  original_id: string | null;
  ua: string | null;
  timezone: string | null;
  https: boolean | null;
  unique: boolean | null;
  bot: boolean;
  page_id: string | null;
  session_id: string | null;
  duration: number | null;
  scrolled: number | null;
  viewport_width: number | null;
  viewport_height: number | null;
  screen_width: number | null;
  screen_height: number | null;
  language: string | null;
  os_name: string | null;
  os_version: string | null;
  /** Client-hint brands, `Brand;version,…` or the JSON list of `{brand, version}` (client-hints.ts). */
  brands: string | null;
  mobile: boolean | null;
  /** Browsers that hide behind another's user agent say so: Brave, DuckDuckGo. */
  brave: boolean | null;
  duck: boolean | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
  /** Plain campaign tags: ?source=, ?ref=, ?medium= … */
  campaign_source: string | null;
  campaign_ref: string | null;
  campaign_medium: string | null;
  campaign_campaign: string | null;
  campaign_term: string | null;
  campaign_content: string | null;
}

export type ParseResult = { ok: true; payload: CollectorPayload } | { ok: false; error: string };

export class PayloadError extends Error {}

const MAX_SIZE = 100_000;
const MAX_ID = 128;

/** Image routes carry everything as strings; JSON routes carry typed values. Both are read by the same rules. */
interface Reader {
  string(field: string, max: number): string | null;
  boolean(field: string): boolean | null;
  number(field: string, min: number, max: number, integer: boolean): number | null;
  metadata(field: string): Record<string, string | number | boolean> | null;
  raw(field: string): unknown;
}

const invalid = (field: string): never => {
  throw new PayloadError(`invalid ${field}`);
};

function metadataObject(value: unknown, field: string): Record<string, string | number | boolean> | null {
  if (value === undefined || value === null) return null;
  // The Simple Analytics script sends `[]` for "no metadata".
  if (Array.isArray(value) && value.length === 0) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return invalid(field);
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[k] = v;
  }
  return Object.keys(out).length ? out : null;
}

/** Readers are classes, not object literals of closures: one is made per beacon, on the hot path. */
class JsonReader implements Reader {
  constructor(private readonly source: Source) {}

  raw(field: string): unknown {
    return this.source[field];
  }

  string(field: string, max: number): string | null {
    const v = this.source[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string' || v.length > max) return invalid(field);
    return v;
  }

  boolean(field: string): boolean | null {
    const v = this.source[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'boolean') return invalid(field);
    return v;
  }

  number(field: string, min: number, max: number, integer: boolean): number | null {
    const v = this.source[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) return invalid(field);
    return v;
  }

  metadata(field: string): Record<string, string | number | boolean> | null {
    return metadataObject(this.source[field], field);
  }
}

class QueryReader implements Reader {
  constructor(private readonly params: QueryParams) {}

  /** Field names are never Object.prototype's, and only strings are values: a plain object reads as safely as a Map. */
  raw(field: string): string | undefined {
    const v = this.params[field];
    return typeof v === 'string' ? v : undefined;
  }

  string(field: string, max: number): string | null {
    const v = this.raw(field);
    if (v === undefined) return null;
    if (v.length > max) return invalid(field);
    return v;
  }

  boolean(field: string): boolean | null {
    const v = this.raw(field);
    if (v === undefined || v === '') return null;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    return invalid(field);
  }

  number(field: string, min: number, max: number, integer: boolean): number | null {
    const v = this.raw(field);
    if (v === undefined || v === '') return null;
    const n = Number(v);
    if (!/^-?\d+(\.\d+)?$/.test(v) || n < min || n > max || (integer && !Number.isInteger(n))) return invalid(field);
    return n;
  }

  metadata(field: string): Record<string, string | number | boolean> | null {
    const v = this.raw(field);
    if (v === undefined || v === '') return null;
    try {
      return metadataObject(JSON.parse(v), field);
    } catch {
      return invalid(field);
    }
  }
}

/** A value that is a string or a number (event names, ids sent as numbers by server code). */
function textish(r: Reader, field: string, max: number): string | null {
  const v = r.raw(field);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return r.string(field, max);
}

const size = (r: Reader, field: string) => r.number(field, 0, MAX_SIZE, true);
/** Labels reports list: kept trimmed, and a blank one is none (spec part 4: empty labels are omitted). */
const label = (r: Reader, field: string, max: number) => r.string(field, max)?.trim() || null;
const tag = (r: Reader, field: string) => label(r, field, 2048);

/** Brands as a string; a JSON route may also send the list itself, kept as its JSON text. */
function brands(r: Reader): string | null {
  const v = r.raw('brands');
  if (!Array.isArray(v)) return r.string('brands', 512);
  const text = JSON.stringify(v);
  return text.length > 512 ? invalid('brands') : text;
}

/**
 * A campaign tag (spec part 2), UTM or plain form, from its own field; when
 * the field is absent, from `query` (`utm_source=…&ref=…`, with or without a
 * leading `?`), where the Simple Analytics script sends them all. Both are
 * trimmed, blank is none.
 */
const campaignTag = (r: Reader, wire: string, inQuery: URLSearchParams | null): string | null => tag(r, wire) ?? (inQuery?.get(wire)?.trim() || null);

function read(r: Reader): CollectorPayload {
  const hostname = r.string('hostname', 253);
  if (!hostname) invalid('hostname');
  const type = r.string('type', 16) ?? 'pageview';
  if (!PAYLOAD_TYPES.has(type)) invalid('type');
  // An explicit empty path is still the page root.
  const path = r.string('path', 2048) || '/';
  if (!path.startsWith('/')) invalid('path');
  const query = r.string('query', 2048);
  const inQuery = query?.includes('=') ? new URLSearchParams(query) : null;
  // One literal with every field (no spread): the payload keeps one shape, read on every beacon.
  return {
    hostname: hostname as string,
    type: type as PayloadType,
    // Event names may arrive longer than 256; normalization cuts them first.
    event: textish(r, 'event', 100_000),
    path,
    query,
    referrer: r.string('referrer', 2048),
    metadata: r.metadata('metadata'),
    id: textish(r, 'id', MAX_ID) || null,
    original_id: textish(r, 'original_id', MAX_ID) || null,
    ua: r.string('ua', 1024),
    timezone: r.string('timezone', 64),
    https: r.boolean('https'),
    unique: r.boolean('unique'),
    bot: r.boolean('bot') ?? false,
    page_id: textish(r, 'page_id', MAX_ID) || null,
    session_id: textish(r, 'session_id', MAX_ID) || null,
    duration: r.number('duration', 0, 86_400, false),
    scrolled: r.number('scrolled', 0, 100, false),
    viewport_width: size(r, 'viewport_width'),
    viewport_height: size(r, 'viewport_height'),
    screen_width: size(r, 'screen_width'),
    screen_height: size(r, 'screen_height'),
    language: label(r, 'language', 64),
    os_name: label(r, 'os_name', 64),
    os_version: r.string('os_version', 64),
    brands: brands(r),
    mobile: r.boolean('mobile'),
    brave: r.boolean('brave'),
    duck: r.boolean('duck'),
    utm_source: campaignTag(r, 'utm_source', inQuery),
    utm_medium: campaignTag(r, 'utm_medium', inQuery),
    utm_campaign: campaignTag(r, 'utm_campaign', inQuery),
    utm_term: campaignTag(r, 'utm_term', inQuery),
    utm_content: campaignTag(r, 'utm_content', inQuery),
    campaign_source: campaignTag(r, 'source', inQuery),
    campaign_ref: campaignTag(r, 'ref', inQuery),
    campaign_medium: campaignTag(r, 'medium', inQuery),
    campaign_campaign: campaignTag(r, 'campaign', inQuery),
    campaign_term: campaignTag(r, 'term', inQuery),
    campaign_content: campaignTag(r, 'content', inQuery),
  };
}

function attempt(r: Reader): ParseResult {
  try {
    return { ok: true, payload: read(r) };
  } catch (e) {
    if (e instanceof PayloadError) return { ok: false, error: e.message };
    throw e;
  }
}

const NOT_ONE_OBJECT = 'invalid body: expected one JSON object';
const isOneObject = (body: unknown): body is Source => typeof body === 'object' && body !== null && !Array.isArray(body);

/**
 * A JSON route's body, parsed: one JSON object, whatever the Content-Type.
 * Anything else (broken JSON, a batch as an array, a bare value) is malformed
 * input, refused even under DNT (spec part 4 rules 5 and 6).
 */
export function parseJsonBody(text: string): { ok: true; body: Source } | { ok: false; error: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, error: NOT_ONE_OBJECT };
  }
  return isOneObject(body) ? { ok: true, body } : { ok: false, error: NOT_ONE_OBJECT };
}

/** JSON routes: one object (batches and other JSON values are refused). */
export function parseJsonPayload(body: unknown): ParseResult {
  if (!isOneObject(body)) return { ok: false, error: NOT_ONE_OBJECT };
  return attempt(new JsonReader(body));
}

export function parseQueryPayload(params: QueryParams): ParseResult {
  return attempt(new QueryReader(params));
}

/** `collect-dnt: true` opts the visitor back in despite DNT. */
export const collectDntJson = (body: Source) => body['collect-dnt'] === true;
export const collectDntQuery = (params: QueryParams): boolean => {
  const v = params['collect-dnt'];
  return v === 'true' || v === '1';
};
