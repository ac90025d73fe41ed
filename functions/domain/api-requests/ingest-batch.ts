/**
 * A POST /api/ingest body: `{requests: [{method, route, status, duration_ms,
 * bytes_in?, bytes_out?, consumer?}]}`, 1 to 1,000 items. The first invalid
 * item refuses the whole batch, its index and field named; unknown fields
 * (a client `ts` among them: arrival time only) are ignored.
 */
import type { ApiRequestRow } from './request-row.ts';

export const MAX_INGEST_ITEMS = 1_000;
export const MAX_ROUTE_LENGTH = 256;
export const MAX_CONSUMER_LENGTH = 64;
/** A day: longer requests (streams, long polls) are recorded as a day. */
export const MAX_DURATION_MS = 86_400_000;

/** An item as the client sent it, checked: the row's fields the service does not assign. */
export type IngestedRequest = Omit<ApiRequestRow, 'site' | 'registration' | 'ts' | 'id'>;

/** The texts a batch is refused with, as patterns (`{i}` is the item's index), for the API document. */
export const INGEST_ERRORS = [
  'invalid JSON body',
  `requests must be an array of 1 to ${MAX_INGEST_ITEMS} items`,
  'requests[{i}] must be an object',
  'requests[{i}].method must be an HTTP method (letters only, at most 16)',
  `requests[{i}].route must be a route template of 1 to ${MAX_ROUTE_LENGTH} characters`,
  'requests[{i}].status must be an integer from 100 to 599',
  `requests[{i}].duration_ms must be a number from 0 to ${MAX_DURATION_MS}`,
  'requests[{i}].bytes_in must be an integer of at least 0',
  'requests[{i}].bytes_out must be an integer of at least 0',
  `requests[{i}].consumer must be a string of at most ${MAX_CONSUMER_LENGTH} characters`,
] as const;

const METHOD = /^[A-Za-z]{1,16}$/;

const optionalBytes = (value: unknown): number | null | undefined =>
  value === undefined || value === null ? null : Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;

function parseItem(value: unknown, i: number): IngestedRequest | string {
  const at = `requests[${i}]`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${at} must be an object`;
  const item = value as Record<string, unknown>;
  if (typeof item.method !== 'string' || !METHOD.test(item.method)) return `${at}.method must be an HTTP method (letters only, at most 16)`;
  if (typeof item.route !== 'string' || item.route.length === 0 || item.route.length > MAX_ROUTE_LENGTH) {
    return `${at}.route must be a route template of 1 to ${MAX_ROUTE_LENGTH} characters`;
  }
  if (!Number.isInteger(item.status) || (item.status as number) < 100 || (item.status as number) > 599) return `${at}.status must be an integer from 100 to 599`;
  const duration = item.duration_ms;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration < 0 || duration > MAX_DURATION_MS) {
    return `${at}.duration_ms must be a number from 0 to ${MAX_DURATION_MS}`;
  }
  const bytesIn = optionalBytes(item.bytes_in);
  if (bytesIn === undefined) return `${at}.bytes_in must be an integer of at least 0`;
  const bytesOut = optionalBytes(item.bytes_out);
  if (bytesOut === undefined) return `${at}.bytes_out must be an integer of at least 0`;
  const consumer = item.consumer;
  if (consumer !== undefined && consumer !== null && (typeof consumer !== 'string' || consumer.length > MAX_CONSUMER_LENGTH)) {
    return `${at}.consumer must be a string of at most ${MAX_CONSUMER_LENGTH} characters`;
  }
  return {
    method: item.method.toUpperCase(),
    route: item.route,
    status: item.status as number,
    duration_ms: duration,
    bytes_in: bytesIn,
    bytes_out: bytesOut,
    // An empty label is no label.
    consumer: typeof consumer === 'string' && consumer !== '' ? consumer : null,
  };
}

/** The batch's requests, or the first reason it is refused. `body` is the parsed JSON (undefined: missing or not JSON). */
export function parseIngestBatch(body: unknown): { ok: true; requests: IngestedRequest[] } | { ok: false; error: string } {
  if (body === undefined) return { ok: false, error: 'invalid JSON body' };
  const list = (body as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_INGEST_ITEMS) return { ok: false, error: `requests must be an array of 1 to ${MAX_INGEST_ITEMS} items` };
  const requests: IngestedRequest[] = [];
  for (let i = 0; i < list.length; i++) {
    const parsed = parseItem(list[i], i);
    if (typeof parsed === 'string') return { ok: false, error: parsed };
    requests.push(parsed);
  }
  return { ok: true, requests };
}
