/**
 * Search Console (issue 41), the pure parts: the consent flow's state and
 * PKCE pair, the stats query, which days a sync pulls, and Google's rows as
 * stored rows.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseBreakdownLimit } from '#domain/reports/query.ts';
import type { GoogleSearchRow, SearchDim, SearchLinkRecord, SearchRow, StoredSearchDim } from '#ports/search-console.ts';

export const PROPERTY_REQUIRED = 'property required';

/** A consent flow must come back within this long. */
export const OAUTH_STATE_TTL_SECONDS = 600;
/** Google's largest page of searchAnalytics.query. */
export const SEARCH_ROW_LIMIT = 25_000;
/** Google keeps 16 months; the first sync pulls as much (about 486 days). */
export const FIRST_SYNC_DAYS = 486;
/** Google's figures of the last days still change: each sync pulls them again. */
export const DATA_DELAY_DAYS = 3;
/** Days per request window: bounds one window's rows in memory. */
export const SYNC_WINDOW_DAYS = 31;
/** How long `POST …/gsc/sync` starts new windows for: the rest waits for the next call (API Gateway ends a request at 30 s). */
export const ROUTE_SYNC_BUDGET_MS = 20_000;
/** The longest stats range, in days. */
export const MAX_STATS_DAYS = 500;

export const SEARCH_DIMS: readonly SearchDim[] = ['queries', 'pages', 'countries', 'devices'];
/** Google's dimension of each stored one (always beside `date`). */
export const GOOGLE_DIMENSION: Record<StoredSearchDim, string | null> = { total: null, queries: 'query', pages: 'page', countries: 'country', devices: 'device' };

const base64url = (b: Buffer) => b.toString('base64url');
export const newOAuthSecret = (): string => base64url(randomBytes(32));
export const stateHash = (state: string): string => createHash('sha256').update(state).digest('hex');
/** The PKCE S256 challenge of a verifier (RFC 7636). */
export const codeChallenge = (verifier: string): string => base64url(createHash('sha256').update(verifier).digest());

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string): number => Date.parse(`${day}T00:00:00Z`);
export const addDays = (day: string, n: number): string => dayOf(msOf(day) + n * DAY_MS);

function validDay(s: string | undefined): s is string {
  return s !== undefined && DAY.test(s) && dayOf(msOf(s)) === s;
}

export type StatsQuery = { ok: true; from: string; to: string; dim: SearchDim; limit: number } | { ok: false; error: 'range' | 'dimension' };

/** `from`, `to` (days, inclusive; default the 28 days to `today`), `dim` (default queries), `limit` (as breakdowns'). */
export function parseStatsQuery(query: Readonly<Record<string, string | undefined>>, today: string): StatsQuery {
  const to = query.to ?? today;
  if (!validDay(to)) return { ok: false, error: 'range' };
  const from = query.from ?? addDays(to, -27);
  if (!validDay(from) || from > to || (msOf(to) - msOf(from)) / DAY_MS >= MAX_STATS_DAYS) return { ok: false, error: 'range' };
  const dim = (query.dim ?? 'queries') as SearchDim;
  if (!SEARCH_DIMS.includes(dim)) return { ok: false, error: 'dimension' };
  return { ok: true, from, to, dim, limit: parseBreakdownLimit(query.limit ?? '100') };
}

/** The windows a sync pulls, oldest first: from the day after what is stored less the delay (or 16 months back) to yesterday. */
export function syncWindows(syncedThrough: string | null, today: string): { startDate: string; endDate: string }[] {
  const end = addDays(today, -1);
  const earliest = addDays(today, -FIRST_SYNC_DAYS);
  let start = syncedThrough === null ? earliest : addDays(syncedThrough, -(DATA_DELAY_DAYS - 1));
  if (start < earliest) start = earliest;
  const windows: { startDate: string; endDate: string }[] = [];
  while (start <= end) {
    const last = addDays(start, SYNC_WINDOW_DAYS - 1);
    windows.push({ startDate: start, endDate: last < end ? last : end });
    start = addDays(last, 1);
  }
  return windows;
}

/** Google's rows of `[date, dimension]` (or `[date]` for totals) as stored rows. */
export function searchRowsOf(dim: StoredSearchDim, rows: readonly GoogleSearchRow[]): SearchRow[] {
  return rows.map((r) => ({ date: r.keys[0] ?? '', dim, name: dim === 'total' ? '' : (r.keys[1] ?? ''), clicks: r.clicks, impressions: r.impressions, position: r.position }));
}

/** The link as answers show it: never the sealed token. */
export function linkView(link: SearchLinkRecord | null): { property: string | null; linked_at: string; last_sync_at: string | null; last_error: string | null } | null {
  return link ? { property: link.property, linked_at: link.linked_at, last_sync_at: link.last_sync_at, last_error: link.last_error } : null;
}
