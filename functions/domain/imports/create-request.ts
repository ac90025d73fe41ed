/**
 * Validation of `POST /api/sites/{hostname}/imports` bodies: checks 3 (dates)
 * and 4 (source and configuration) of spec part 4 "Imports", in that order;
 * the first failure wins. Body: `{source, range_start, range_end, config:
 * {user_id, api_key, source_hostname}}` (DESIGN.md §4).
 */
import { normalizeHostname } from '../hostname.ts';
import { daysBetween, parseDate, todayUtc } from './dates.ts';
import { findImportSource, type ImportSource } from './source.ts';

/** Longest import range, in days (both ends included). */
export const MAX_IMPORT_RANGE_DAYS = 400;

export const INVALID_DATE_RANGE = 'invalid date range';
export const UNKNOWN_IMPORT_SOURCE = 'unknown import source';
export const USER_ID_REQUIRED = 'User ID is required';
export const API_KEY_REQUIRED = 'API key is required';
export const API_KEY_INVALID = 'API key is invalid';
export const SOURCE_HOSTNAME_REQUIRED = 'Source hostname is required';
export const SOURCE_HOSTNAME_INVALID = 'Source hostname is invalid';
/** What a retry answers when the kept key expired and none came, or the new one is implausible. */
export const RETRY_CREDENTIAL_ERRORS = [API_KEY_REQUIRED, API_KEY_INVALID] as const;
/** Every text the request parsers answer with. */
export const IMPORT_REQUEST_ERRORS = [INVALID_DATE_RANGE, UNKNOWN_IMPORT_SOURCE, USER_ID_REQUIRED, API_KEY_REQUIRED, API_KEY_INVALID, SOURCE_HOSTNAME_REQUIRED, SOURCE_HOSTNAME_INVALID] as const;

export interface ImportCredentials {
  user_id: string;
  api_key: string;
}

export interface ImportRequest {
  source: ImportSource;
  range_start: string;
  range_end: string;
  credentials: ImportCredentials;
  /** Normalized like a site registration. */
  source_hostname: string;
}

export type ParsedImportRequest = { ok: true; request: ImportRequest } | { ok: false; error: string };

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * A key that could be one: Simple Analytics keys are `sa_api_key_` and
 * alphanumerics; the range is loose for other forms. Anything else is refused
 * before it is sent anywhere, and a key of this alphabet reads the same
 * URL-encoded or JSON-escaped, so an echo of it is always found and redacted.
 */
const PLAUSIBLE_API_KEY = /^[A-Za-z0-9_-]{16,128}$/;

/** A nonblank string, trimmed; anything else counts as missing. */
function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t;
}

/**
 * Check 3: both dates real YYYY-MM-DD days, end not before start, end not
 * after today (UTC), at most 400 days including both ends. A missing or
 * non-JSON body (undefined here) fails this check first.
 */
export function checkImportDates(body: unknown, now: Date): { ok: true; start: string; end: string } | { ok: false; error: string } {
  const fields = asObject(body);
  const start = fields.range_start;
  const end = fields.range_end;
  if (parseDate(start) === null || parseDate(end) === null) return { ok: false, error: INVALID_DATE_RANGE };
  const s = start as string;
  const e = end as string;
  if (e < s || e > todayUtc(now) || daysBetween(s, e) + 1 > MAX_IMPORT_RANGE_DAYS) return { ok: false, error: INVALID_DATE_RANGE };
  return { ok: true, start: s, end: e };
}

/** Check 4: the source, then each required field in the order of its definition, then the source hostname's form. */
export function checkImportConfig(
  body: unknown,
): { ok: true; source: ImportSource; credentials: ImportCredentials; source_hostname: string } | { ok: false; error: string } {
  const fields = asObject(body);
  const source = findImportSource(fields.source);
  if (!source) return { ok: false, error: UNKNOWN_IMPORT_SOURCE };
  const config = asObject(fields.config);
  const userId = text(config.user_id);
  if (!userId) return { ok: false, error: USER_ID_REQUIRED };
  // The key is used exactly as given: surrounding spaces are never part of one, inner ones would be.
  const apiKey = text(config.api_key);
  if (!apiKey) return { ok: false, error: API_KEY_REQUIRED };
  if (!PLAUSIBLE_API_KEY.test(apiKey)) return { ok: false, error: API_KEY_INVALID };
  const rawHost = text(config.source_hostname);
  if (!rawHost) return { ok: false, error: SOURCE_HOSTNAME_REQUIRED };
  const host = normalizeHostname(rawHost, 'web');
  if (!host.ok) return { ok: false, error: SOURCE_HOSTNAME_INVALID };
  return { ok: true, source, credentials: { user_id: userId, api_key: apiKey }, source_hostname: host.hostname };
}

/** Checks 3 and 4 together, dates first. */
export function parseImportRequest(body: unknown, now: Date): ParsedImportRequest {
  const dates = checkImportDates(body, now);
  if (!dates.ok) return dates;
  const config = checkImportConfig(body);
  if (!config.ok) return config;
  return {
    ok: true,
    request: { source: config.source, range_start: dates.start, range_end: dates.end, credentials: config.credentials, source_hostname: config.source_hostname },
  };
}

/**
 * The optional body of `POST …/retry`: `{config: {api_key}}` replaces the
 * kept API key (after it was rotated, or once the kept one expired). A blank
 * or missing key keeps what is stored; an implausible one is refused.
 */
export function parseRetryCredentials(body: unknown): { api_key?: string } | { error: string } {
  const apiKey = text(asObject(asObject(body).config).api_key);
  if (!apiKey) return {};
  return PLAUSIBLE_API_KEY.test(apiKey) ? { api_key: apiKey } : { error: API_KEY_INVALID };
}
