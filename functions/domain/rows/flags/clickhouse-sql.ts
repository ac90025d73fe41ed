/**
 * The copy and page rules (flag-index.ts) as ClickHouse SQL: the writer lists copies and appends
 * with their pages by them, and the reports and rollup builds read by the same rules.
 */
import { APPEND_WINDOW_MS, COPY_WINDOW_MS } from './flag-index.ts';
import { sqlIdentifier, sqlInteger } from '../../sql-literals.ts';

/**
 * The writer's list of copies (adapters/clickhouse/schema.ts LISTED_COPIES), quoted, and from when
 * (Unix ms) it holds every copy; its list of appends with their pages (LISTED_APPENDS), and from
 * when (Unix ms of page ts) it holds every append of a page.
 */
export interface Listing {
  copies: string;
  since: number;
  appends: string;
  appendsSince: number;
}

/** Whether `column` lies in one of some [from, to) ranges. */
export const inRanges = (column: string, ranges: readonly (readonly [number, number])[]) =>
  ranges.map(([a, b]) => `(${column} >= ${sqlInteger(a)} AND ${column} < ${sqlInteger(b)})`).join(' OR ');

/** The key of a stored row, as the list of copies keeps it. */
const ROW_KEY = '"site", "registration", "kind", "id", "ts"';

/**
 * Stored rows as they are, less the listed copies, one of each stored twice (`LIMIT 1 BY`: two
 * deliveries before the table merged them): `where` picks the rows and their listed copies by
 * columns both keep (kind, site, registration, ts), `also` the rows only.
 */
export function lessListedCopies(table: string, copies: string, columns: readonly string[], where: string, also = ''): string {
  return `(SELECT ${columns.join(', ')} FROM ${table}
      WHERE ${where}${also}
        AND (${ROW_KEY}) NOT IN (SELECT ${ROW_KEY} FROM ${copies} WHERE ${where} AND NOT "exact")
      LIMIT 1 BY ${ROW_KEY})`;
}

/** Each row's ts before it among the rows of the same `keys` (NULL for the first): what decides a copy. */
export const previousTsOver = (keys: readonly string[]) =>
  `lagInFrame(toNullable("ts")) OVER (PARTITION BY ${keys.map(sqlIdentifier).join(', ')} ORDER BY "ts" ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`;

/**
 * In a stream of pages (`is_page` 1) and appends (0) keyed by the page's id, each row's latest
 * page ts at or before it among the rows of the same `keys` (a page before an append of the same
 * ts), and whether an append belongs to that page: it comes at most APPEND_WINDOW_MS after it.
 */
export const pageTsOver = (keys: readonly string[]) =>
  `max(if("is_page" = 1, "ts", NULL)) OVER (PARTITION BY ${keys.map(sqlIdentifier).join(', ')} ORDER BY "ts" ASC, "is_page" DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`;
export const OF_ITS_PAGE = `isNotNull("page_ts") AND "ts" <= "page_ts" + ${sqlInteger(APPEND_WINDOW_MS)}`;

/**
 * The copies among a derived table's rows (with `ts` and `keys`): each row at most COPY_WINDOW_MS
 * after the one before of the same keys, from `from` on, with `ts`, the keys and `exact` (it repeats
 * that row's ts: one row stored twice). The writer's list and a rollup build's are both this.
 */
export function copiesAmong(rows: string, keys: readonly string[], from?: number): string {
  const columns = [...keys.map(sqlIdentifier), '"ts"'].join(', ');
  const since = from === undefined ? '' : ` AND "ts" >= ${sqlInteger(from)}`;
  return `(SELECT ${columns}, "ts" = "previous_ts" AS "exact" FROM (
      SELECT ${columns}, ${previousTsOver(keys)} AS "previous_ts" FROM ${rows} AS r
    ) AS c
    WHERE isNotNull("previous_ts") AND "ts" - "previous_ts" <= ${sqlInteger(COPY_WINDOW_MS)}${since})`;
}
