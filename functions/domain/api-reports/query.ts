/**
 * The API reports' parameters (issue 36): the web reports' range and timezone
 * (domain/reports/query.ts), their own filter dimensions and breakdowns.
 * Filters: `route`, `method`, `status` (an exact code or a class such as
 * `5xx`) and `consumer`, each `dim:value` (equals) or `dim!value` (not
 * equals), joined by `;`, values URL-encoded; anything else is 400 `invalid filter`.
 */
import type { ApiBreakdownDim, ApiFilter, ApiFilterDim } from '#ports/api-request-store.ts';
import { INVALID_FILTER, INVALID_RANGE, INVALID_TIMEZONE, type ReportQueryError } from '../reports/query.ts';
import { parseRange, parseTimezone, type Range } from '../reports/time.ts';
import { parseClauses } from '../reports/filter.ts';

export const API_FILTER_DIMS: readonly ApiFilterDim[] = ['route', 'method', 'status', 'consumer'];
export const API_BREAKDOWN_DIMS: readonly ApiBreakdownDim[] = ['routes', 'statuses', 'methods', 'consumers'];

const OPERATORS: Record<string, ApiFilter['op']> = { ':': 'eq', '!': 'neq' };

const isApiFilterDim = (value: string): value is ApiFilterDim => (API_FILTER_DIMS as readonly string[]).includes(value);

/** A clause's value as the store compares it, or null when the dimension cannot hold it. */
function filterValue(dim: ApiFilterDim, value: string): string | null {
  if (dim === 'status') return /^[1-5](\d\d|xx)$/.test(value) ? value : null;
  if (dim === 'method') return /^[A-Za-z]{1,16}$/.test(value) ? value.toUpperCase() : null;
  return value === '' && dim === 'route' ? null : value;
}

export function parseApiFilter(raw: string | undefined): ApiFilter[] | null {
  const clauses = parseClauses(raw, OPERATORS, isApiFilterDim);
  if (clauses === null) return null;
  const out: ApiFilter[] = [];
  for (const c of clauses) {
    const value = filterValue(c.dim, c.value);
    if (value === null) return null;
    out.push({ ...c, value });
  }
  return out;
}

export const parseApiBreakdownDim = (raw: string | undefined): ApiBreakdownDim | null =>
  raw !== undefined && (API_BREAKDOWN_DIMS as readonly string[]).includes(raw) ? (raw as ApiBreakdownDim) : null;

export type ApiReportQuery = { ok: true; range: Range; tz: string; filters: ApiFilter[] } | { ok: false; error: ReportQueryError };

/** `from`, `to`, `tz` and `filter`, checked in that order as the web reports check theirs. */
export function parseApiReportQuery(query: Readonly<Record<string, string | undefined>>, nowSeconds: number): ApiReportQuery {
  const range = parseRange(query.from, query.to, nowSeconds);
  if (range === null) return { ok: false, error: INVALID_RANGE };
  const tz = parseTimezone(query.tz);
  if (tz === null) return { ok: false, error: INVALID_TIMEZONE };
  const filters = parseApiFilter(query.filter);
  if (filters === null) return { ok: false, error: INVALID_FILTER };
  return { ok: true, range, tz, filters };
}

/** server_errors ÷ requests, a fraction rounded to 4 decimals; null without requests. */
export const errorRate = (serverErrors: number, requests: number): number | null => (requests === 0 ? null : Math.round((serverErrors / requests) * 10_000) / 10_000);
