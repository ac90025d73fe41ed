/**
 * Report query parameters shared by overview, overview summary and breakdown
 * (spec part 4 "Reports", DESIGN.md §4).
 */
import { parseFilter } from './filter.ts';
import type { FilterClause } from './filter.ts';
import { INTERVALS, parseNumber, parseRange, parseTimezone } from './time.ts';
import type { Interval, Range } from './time.ts';

export const BREAKDOWN_DIMS = [
  'pages',
  'entry_pages',
  'exit_pages',
  'referrers',
  'sources',
  'utm_sources',
  'utm_mediums',
  'utm_campaigns',
  'utm_terms',
  'utm_contents',
  'countries',
  'devices',
  'browsers',
  'os',
  'languages',
  'screens',
  'events',
] as const;

export type BreakdownDim = (typeof BREAKDOWN_DIMS)[number];

/**
 * Event-store column each breakdown groups by. `entry_pages` groups the path of
 * each visitor's first pageview in the range (the unique flag), `exit_pages` of
 * each visit's last (reports/sql/exit-pages.ts); `screens` groups
 * the SCREEN_CLASSES of screen_width (a SQL CASE, reports/sql/text.ts); `events`
 * groups event rows by name.
 */
export const BREAKDOWN_COLUMNS: Record<BreakdownDim, string> = {
  pages: 'path',
  entry_pages: 'path',
  exit_pages: 'path',
  referrers: 'referrer_host',
  sources: 'source',
  utm_sources: 'utm_source',
  utm_mediums: 'utm_medium',
  utm_campaigns: 'utm_campaign',
  utm_terms: 'utm_term',
  utm_contents: 'utm_content',
  countries: 'country',
  devices: 'device',
  browsers: 'browser',
  os: 'os',
  languages: 'language',
  screens: 'screen_width',
  events: 'event',
};

export function isBreakdownDim(value: string): value is BreakdownDim {
  return Object.hasOwn(BREAKDOWN_COLUMNS, value);
}

/** The `dim` query value, or null (400 `unknown dimension`) when missing or unknown. */
export function parseBreakdownDim(raw: string | undefined): BreakdownDim | null {
  return raw !== undefined && isBreakdownDim(raw) ? raw : null;
}

/** Screen-size classes by screen width in CSS pixels, narrowest first: a width below `below` is `name`. */
export const SCREEN_CLASSES = [
  { name: 'Mobile', below: 576 },
  { name: 'Tablet', below: 992 },
  { name: 'Laptop', below: 1440 },
  { name: 'Desktop', below: Number.POSITIVE_INFINITY },
] as const;

export type ScreenClass = (typeof SCREEN_CLASSES)[number]['name'];


export const DEFAULT_BREAKDOWN_LIMIT = 10;
export const MAX_BREAKDOWN_LIMIT = 1000;
export const DEFAULT_SUMMARY_LIMIT = 5;
export const MAX_SUMMARY_LIMIT = 20;

/**
 * Breakdown `limit` (DESIGN.md §4): default 10, fractions round down, clamped
 * to 1..1000. Missing or non-numeric (including `Infinity`/`1e400`) gives the
 * default; zero and below clamp to 1 (`'0'` → 1, `'-3'` → 1, `'0.5'` → 1,
 * `'5000'` → 1000).
 */
export function parseBreakdownLimit(raw: string | undefined): number {
  const n = raw === undefined ? null : parseNumber(raw);
  if (n === null) return DEFAULT_BREAKDOWN_LIMIT;
  return Math.min(Math.max(Math.floor(n), 1), MAX_BREAKDOWN_LIMIT);
}

/**
 * Overview-summary `limit` (spec part 4): default 5, fractions round down,
 * clamped to 1..20; zero (after rounding down) or non-numeric gives 5.
 * Decision: a negative value is clamped to 1, not defaulted (`'-3'` → 1,
 * `'-0.5'` → 1), since the spec only names zero and non-numeric as defaults.
 * Examples: `'1.9'` → 1, `'0.9'` → 5, `'x'` → 5, `'99'` → 20.
 */
export function parseSummaryLimit(raw: string | undefined): number {
  const n = raw === undefined ? null : parseNumber(raw);
  if (n === null) return DEFAULT_SUMMARY_LIMIT;
  const v = Math.floor(n);
  if (v === 0) return DEFAULT_SUMMARY_LIMIT;
  return Math.min(Math.max(v, 1), MAX_SUMMARY_LIMIT);
}

/** The texts parseReportQuery answers with, in the order it checks. */
export const REPORT_QUERY_ERRORS = ['invalid range', 'invalid timezone', 'invalid filter'] as const;
export type ReportQueryError = (typeof REPORT_QUERY_ERRORS)[number];
export const [INVALID_RANGE, INVALID_TIMEZONE, INVALID_FILTER] = REPORT_QUERY_ERRORS;

export type ReportQuery =
  | { ok: true; range: Range; tz: string; filters: FilterClause[] }
  | { ok: false; error: ReportQueryError };

/**
 * The common report parameters `from`, `to`, `tz` and `filter`, validated in
 * that order (range, timezone, filter); the first failure is the 400 message.
 * A report that ignores `tz` (the breakdown, spec part 4) reads UTC whatever it says.
 */
export function parseReportQuery(query: Readonly<Record<string, string | undefined>>, nowSeconds: number, { ignoreTz = false } = {}): ReportQuery {
  const range = parseRange(query.from, query.to, nowSeconds);
  if (range === null) return { ok: false, error: INVALID_RANGE };
  const tz = ignoreTz ? 'UTC' : parseTimezone(query.tz);
  if (tz === null) return { ok: false, error: INVALID_TIMEZONE };
  const filters = parseFilter(query.filter);
  if (filters === null) return { ok: false, error: INVALID_FILTER };
  return { ok: true, range, tz, filters };
}

export const INVALID_INTERVAL = 'interval must be day, week or month';

/** The overview's `interval`: null when absent (the range decides), or INVALID_INTERVAL. */
export function parseInterval(raw: string | undefined): { ok: true; interval: Interval | null } | { ok: false; error: typeof INVALID_INTERVAL } {
  if (raw === undefined) return { ok: true, interval: null };
  return (INTERVALS as readonly string[]).includes(raw) ? { ok: true, interval: raw as Interval } : { ok: false, error: INVALID_INTERVAL };
}
