/**
 * A fragment shared by the traffic engagement and retention queries: the CTEs
 * ending in `page`, one row per canonical human pageview in [from, to) that
 * matches the filters and has engagement (domain/rows/copies.ts: its own,
 * and that of the canonical appends that belong to it), with `site`, `ts`,
 * `total_duration` (its own duration plus its appends', null when none has
 * one) and `scroll` (the maximum of its own and its appends'); and where
 * DuckDB and ClickHouse keep daily rollups, the CTE `engaged` of the same
 * pages, those of the named days read as the rollups stored them.
 */
import type { FilterClause } from '#domain/reports/filter.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { APPEND_WINDOW_MS } from '#domain/rows/flags/flag-index.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { trafficDays, wholeDays } from '../plan.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { inRanges, OF_ITS_PAGE, pageTsOver, type Listing } from '#domain/rows/flags/clickhouse-sql.ts';
import { splitRanges, type ClickHouseSql } from './dialects/clickhouse.ts';
import { ofNamedBuilds, readsOpen, readsSealed, type RolledDays, type RolledPart, type RolledTables } from './dialects/clickhouse-rollups.ts';
import { CANONICAL, type DuckDbSql } from './dialects/duckdb.ts';
import { dayNamed, ROLLUP_PAGES } from './dialects/duckdb-rollups.ts';
import { dayRanges, rawBucket, rowRanges, SLOT_MS, slotBuckets, type SealedDays } from './sealed-days.ts';
import { filterColumns, filterSql } from './text.ts';

/**
 * Timestream, over disjoint ascending [from, to) ranges of page ts:
 * canonical appends (they may arrive up to a window after a range's end)
 * joined to the canonical page of their original_id at most
 * APPEND_WINDOW_MS before them; the window is a condition after the
 * equi-join (an inner join, so the same rows). `greatest` is NULL when any
 * argument is: the coalesces make it skip a missing side; a page without
 * appends gets NULLs from the LEFT JOIN.
 */
export function readTimeEngagedPages(sql: ReadTimeSql, sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], filters: readonly FilterClause[]): string {
  const { pageviews, appends } = engagementRows(sql, sites, ranges, filters);
  return `
    pv AS (
      SELECT "site", "id", "ts", "duration", "scrolled" FROM ${pageviews} AS e
      WHERE ${sql.notBot}${filterSql(sql, filters)}
    ),
    ap AS (
      SELECT pv."site" AS "site", pv."id" AS "id", pv."ts" AS "ts", sum(a."duration") AS "duration", max(a."scrolled") AS "scrolled"
      FROM pv INNER JOIN ${appends} AS a ON a."site" = pv."site" AND a."original_id" = pv."id"
      WHERE a."ts" >= pv."ts" AND a."ts" <= pv."ts" + ${sql.int(APPEND_WINDOW_MS)}
      GROUP BY pv."site", pv."id", pv."ts"
    ),
    page AS (
      SELECT pv."site" AS "site", pv."ts" AS "ts",
             CASE WHEN pv."duration" IS NULL AND ap."duration" IS NULL THEN NULL
                  ELSE coalesce(pv."duration", 0) + coalesce(ap."duration", 0) END AS "total_duration",
             greatest(coalesce(pv."scrolled", ap."scrolled"), coalesce(ap."scrolled", pv."scrolled")) AS "scroll"
      FROM pv LEFT JOIN ap ON ap."site" = pv."site" AND ap."id" = pv."id" AND ap."ts" = pv."ts"
      WHERE pv."duration" IS NOT NULL OR pv."scrolled" IS NOT NULL OR ap."site" IS NOT NULL
    )`;
}

/**
 * The canonical pageviews of the ranges (with the filters' columns) and the canonical appends
 * that may belong to them: an append comes at most APPEND_WINDOW_MS after its page, so each
 * range's appends run that much longer.
 */
function engagementRows(sql: ReadTimeSql, sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], filters: readonly FilterClause[], carry: readonly string[] = []) {
  return {
    pageviews: pageviewsOf(sql, sites, ranges, filters, carry),
    appends: sql.canonicalIn('append', sites, appendRangesOf(ranges), ['original_id', 'duration', 'scrolled']),
  };
}

const pageviewsOf = (sql: ReadTimeSql, sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], filters: readonly FilterClause[], carry: readonly string[]) =>
  sql.canonicalIn('pageview', sites, ranges, ['duration', 'scrolled', 'bot', ...filterColumns(filters), ...carry]);

/** The ranges of ts in which the appends of pages in `ranges` lie: each runs APPEND_WINDOW_MS longer (merged where they meet). */
function appendRangesOf(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const appendRanges: [number, number][] = [];
  for (const [from, to] of ranges) {
    const last = appendRanges[appendRanges.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to + APPEND_WINDOW_MS);
    else appendRanges.push([from, to + APPEND_WINDOW_MS]);
  }
  return appendRanges;
}

/**
 * ClickHouse: the same pages as readTimeEngagedPages. There a CTE is computed again at every
 * reference, and the join form reads the pageviews three times; here each page and its appends
 * are one group of one stream, keyed by the page's id and ts. The pages from when the writer
 * lists each append with its page (Listing.appendsSince) take their appends from that list;
 * the others find theirs by a window (pagesByWindow). `sum` of only NULLs is NULL, as the join
 * form's. `carry` names columns of the page to keep in `page` (the rollup build keeps the
 * filters' columns): a group holds one page, whose value `anyIf` takes.
 */
export function clickhouseEngagedPages(
  sql: ClickHouseSql,
  sites: readonly SiteRef[],
  ranges: readonly (readonly [number, number])[],
  filters: readonly FilterClause[],
  carry: readonly string[] = [],
): string {
  const listed = sql.listed;
  const { before, after } = listed ? splitRanges(ranges, listed.appendsSince) : { before: ranges, after: [] };
  if (!listed || after.length === 0) return `page AS (${pagesByWindow(sql, sites, ranges, filters, carry)})`;
  const fromList = pagesByList(sql, listed, sites, after, filters, carry);
  if (before.length === 0) return `page AS (${fromList})`;
  return `page AS (SELECT * FROM (${pagesByWindow(sql, sites, before, filters, carry)}) AS w UNION ALL SELECT * FROM (${fromList}) AS l)`;
}

/**
 * The engaged pages among a stream of pages (`is_page` 1) and appends (0), each with the `key`
 * and `page_ts` of its page: per page, its own duration and its appends' summed, the largest
 * scroll, and the carried columns; only groups that hold their page (`pages`), with engagement.
 */
function pagesOfStream(sql: ClickHouseSql, stream: string, carry: readonly string[]): string {
  const carried = carry.map((c) => sql.column(c));
  // The group's value under its own name: an alias equal to its argument's name would refer to itself.
  const kept = (c: string) => sql.column(`page_${c}`);
  return `
      SELECT "site", "page_ts" AS "ts",
             if(isNull("own") AND isNull("appended"), NULL, coalesce("own", 0) + coalesce("appended", 0)) AS "total_duration", "scroll"${carry.map((c, i) => `, ${kept(c)} AS ${carried[i]}`).join('')}
      FROM (
        SELECT "site", "key", "page_ts", sumIf("duration", "is_page" = 1) AS "own", sumIf("duration", "is_page" = 0) AS "appended",
               max("scrolled") AS "scroll", countIf("is_page" = 1 AND isNotNull("scrolled")) AS "own_scrolled", countIf("is_page" = 0) AS "appends",
               countIf("is_page" = 1) AS "pages"${carry.map((c, i) => `, anyIf(${carried[i]}, "is_page" = 1) AS ${kept(c)}`).join('')}
        FROM ${stream} AS s
        GROUP BY "site", "key", "page_ts"
      ) AS g
      WHERE "pages" > 0 AND (isNotNull("own") OR "own_scrolled" > 0 OR "appends" > 0)`;
}

/**
 * Pages and appends keyed by the page's id (an append's original_id); ordered by ts (a page
 * before an append of the same ts), each row takes the latest page ts at or before it, and an
 * append belongs to that page when it comes at most APPEND_WINDOW_MS after it. Two canonical
 * pages of one id are more than that apart, so this is the page the join finds; an append with
 * no such page (none, or one a filter left out) belongs to none.
 */
function pagesByWindow(sql: ClickHouseSql, sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], filters: readonly FilterClause[], carry: readonly string[]): string {
  const { pageviews, appends } = engagementRows(sql, sites, ranges, filters, carry);
  const carried = carry.map((c) => sql.column(c));
  const stream = `(
          SELECT *, ${pageTsOver(['site', 'key'])} AS "page_ts"
          FROM (
            SELECT "site", "id" AS "key", "ts", toUInt8(1) AS "is_page", "duration", "scrolled"${carried.map((c) => `, ${c}`).join('')} FROM ${pageviews} AS e
            WHERE ${sql.notBot}${filterSql(sql, filters)}
            UNION ALL
            SELECT "site", assumeNotNull("original_id"), "ts", toUInt8(0), "duration", "scrolled"${carried.map(() => ', NULL').join('')} FROM ${appends} AS a
            WHERE isNotNull("original_id")
          ) AS u
        )`;
  return pagesOfStream(sql, `(SELECT * FROM ${stream} AS w WHERE ${OF_ITS_PAGE})`, carry);
}

/**
 * The pages with the appends the writer listed for them (page ts in the ranges), less those
 * appends listed as copies since, one of each listed twice (two batches that list the same
 * append). An append listed under a page that is no longer canonical forms a group without
 * its page, which keeps nothing.
 */
function pagesByList(sql: ClickHouseSql, listed: Listing, sites: readonly SiteRef[], ranges: readonly (readonly [number, number])[], filters: readonly FilterClause[], carry: readonly string[]): string {
  const carried = carry.map((c) => sql.column(c));
  const site = sql.sites(sites);
  const appends = `(SELECT "site", "page_id", "page_ts", "duration", "scrolled" FROM ${listed.appends}
      WHERE ${site} AND (${inRanges('"page_ts"', ranges)})
        AND ("site", "registration", "id", "ts") NOT IN (SELECT "site", "registration", "id", "ts" FROM ${listed.copies}
          WHERE "kind" = 'append' AND ${site} AND (${inRanges('"ts"', appendRangesOf(ranges))}) AND NOT "exact")
      LIMIT 1 BY "site", "registration", "page_id", "page_ts", "id", "ts")`;
  const stream = `(
            SELECT "site", "id" AS "key", "ts" AS "page_ts", toUInt8(1) AS "is_page", "duration", "scrolled"${carried.map((c) => `, ${c}`).join('')}
            FROM ${pageviewsOf(sql, sites, ranges, filters, carry)} AS e
            WHERE ${sql.notBot}${filterSql(sql, filters)}
            UNION ALL
            SELECT "site", "page_id", "page_ts", toUInt8(0), "duration", "scrolled"${carried.map(() => ', NULL').join('')} FROM ${appends} AS a
          )`;
  return pagesOfStream(sql, stream, carry);
}

/**
 * DuckDB: the writer stamps each append with the ts of its page (`parent_ts`),
 * so only the appends of the ranges' pages are read, grouped by the page they
 * belong to: its key and ts (an id may have a canonical page in a range more
 * than once). Without filters every such append's page qualifies and only
 * pages with engagement of their own are read besides; with filters the pages
 * are matched first, as they are when `carry` names columns of the page to
 * keep in `page` (the rollup build keeps the filters' columns). `ranges` are
 * disjoint [start, end) ms ranges of page ts, each a condition the scan prunes
 * by (the rolled reads pass the parts of a range that no rollup answers).
 */
export function duckdbEngagedPages(
  sql: DuckDbSql,
  sites: readonly SiteRef[],
  ranges: readonly (readonly [number, number])[],
  filters: readonly FilterClause[],
  carry: readonly string[] = [],
): string {
  // Nothing is bound unless some range uses it (DuckDB refuses unused parameters).
  const site = ranges.length === 0 ? 'false' : sql.sites(sites);
  const pages = sql.rowsInRanges(['site', 'id_key', 'ts', 'duration', 'scrolled', ...carry], ranges, (a, b) => `${CANONICAL} AND ${site} AND ts >= ${a} AND ts < ${b}${filterSql(sql, filters)}`);
  // An append comes at most APPEND_WINDOW_MS after its page: its own ts bounds the scan too.
  const appendRows = sql.rowsInRanges(
    ['site', 'parent_key', 'parent_ts', 'duration', 'scrolled'],
    ranges,
    (a, b) => `kind = 'append' AND NOT replay AND ${site} AND ts >= ${a} AND ts < ${b} + ${sql.int(APPEND_WINDOW_MS)} AND parent_ts >= ${a} AND parent_ts < ${b}`,
  );
  const appends = `
    ap AS (
      SELECT site, parent_key AS id, parent_ts AS ts, sum(duration) AS duration, max(scrolled) AS scrolled
      FROM ${appendRows} AS e
      GROUP BY site, parent_key, parent_ts
    )`;
  const totals = (pv: string) => `
    CASE WHEN ${pv}.duration IS NULL AND ap.duration IS NULL THEN NULL
         ELSE coalesce(${pv}.duration, 0) + coalesce(ap.duration, 0) END AS total_duration,
    greatest(${pv}.scrolled, ap.scrolled) AS scroll`;
  const samePage = (pv: string) => `ap.site = ${pv}.site AND ap.id = ${pv}.id AND ap.ts = ${pv}.ts`;
  if (filters.length === 0 && carry.length === 0) {
    return `${appends},
    own AS (SELECT site, id_key AS id, ts, duration, scrolled FROM ${pages} AS e WHERE duration IS NOT NULL OR scrolled IS NOT NULL),
    page AS (
      SELECT coalesce(own.site, ap.site) AS site, coalesce(own.ts, ap.ts) AS ts, ${totals('own')}
      FROM own FULL OUTER JOIN ap ON ${samePage('own')}
    )`;
  }
  return `${appends},
    pv AS (
      SELECT site, id_key AS id, ts, duration, scrolled${carry.map((c) => `, ${sql.column(c)}`).join('')} FROM ${pages} AS e
      WHERE duration IS NOT NULL OR scrolled IS NOT NULL OR id_key IN (SELECT id FROM ap)
    ),
    page AS (SELECT pv.site, pv.ts, ${totals('pv')}${carry.map((c) => `, pv.${sql.column(c)}`).join('')} FROM pv LEFT JOIN ap ON ${samePage('pv')})`;
}

export const engagedPages: Query<[sites: readonly SiteRef[], from: number, to: number, filters: readonly FilterClause[]], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, sites, from, to, filters) => duckdbEngagedPages(sql, sites, [[from, to]], filters),
  timestream: (sql, sites, from, to, filters) => readTimeEngagedPages(sql, sites, [[from, to]], filters),
  clickhouse: (sql, sites, from, to, filters) => clickhouseEngagedPages(sql, sites, [[from, to]], filters),
};

/**
 * DuckDB, from the rollups: a stored page's bucket, by its slot on the whole days slots can answer
 * (a constant list per day), else by comparing its ts with the boundaries of the parts of the
 * other named days.
 */
function storedBucket(sql: DuckDbSql, bounds: readonly number[], days: SealedDays): string {
  const range = { from: bounds[0] as number, to: bounds[bounds.length - 1] as number };
  const slotted = trafficDays(wholeDays(days.built, range), bounds);
  const bySlot = new Set(slotted);
  const rest = dayRanges(days.built.filter((d) => !bySlot.has(d)), range);
  const byTs = rawBucket(sql, bounds, rest);
  if (slotted.length === 0) return byTs;
  const slot = slotBuckets(sql, bounds, { ...days, built: slotted }).bucket;
  return rest.length === 0 ? slot : `CASE WHEN ${dayNamed(sql, { ...days, built: slotted })} THEN ${slot} ELSE ${byTs} END`;
}

/**
 * DuckDB, from the rollups: the engaged pages matching the filters of the named days (stored with
 * the columns filters compare; a stored page keeps its ts, so the named days may be ones the range
 * only cuts into) and of the rest of the range (joined now), as the CTE `engaged` with `bucket`
 * (null when `bounds` make one bucket), `total_duration` and `scroll`. A median cannot be summed:
 * every page's total is read, but no append is.
 */
export function duckdbRolledEngaged(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  const [from, to] = [bounds[0] as number, bounds[bounds.length - 1] as number];
  const ranges = rowRanges({ from, to }, days);
  const bucketed = bounds.length > 2;
  const stored = `SELECT day, ((ts % ${DAY_MS}) // ${SLOT_MS})::INTEGER AS slot, ts, total_duration, scroll FROM ${ROLLUP_PAGES}
    WHERE ${sql.sites([site])} AND ${dayNamed(sql, days)} AND ts >= ${sql.int(from)} AND ts < ${sql.int(to)}${filterSql(sql, filters)}`;
  return `${duckdbEngagedPages(sql, [site], ranges, filters)},
    engaged AS (
      SELECT ${bucketed ? storedBucket(sql, bounds, days) : 'NULL'} AS bucket, total_duration, scroll FROM (${stored})
      UNION ALL
      SELECT ${bucketed ? rawBucket(sql, bounds, ranges) : 'NULL'}, total_duration, scroll FROM page
    )`;
}

/**
 * ClickHouse, from the rollups: the engaged pages of the range matching the filters as `engaged`:
 * the named builds' pages (which keep the columns filters compare; the sealed part) and those of
 * every other part of the range read from rows (the open part); null when `part` reads neither.
 */
export function clickhouseRolledEngaged(
  sql: ClickHouseSql,
  tables: RolledTables,
  scope: SiteRef & { from: number; to: number },
  days: RolledDays,
  filters: readonly FilterClause[],
  part: RolledPart,
): string | null {
  const ranges = rowRanges(scope, days);
  const raw = ranges.length === 0 || !readsOpen(part) ? null : clickhouseEngagedPages(sql, [scope], ranges, filters);
  // The named days may be ones the range only cuts into: their pages are bounded by ts.
  const rolled =
    days.built.length === 0 || !readsSealed(part)
      ? null
      : `SELECT "site", "ts", "total_duration", "scroll" FROM ${tables.pages}
         WHERE ${ofNamedBuilds(sql, scope, days)} AND "ts" >= ${sql.int(scope.from)} AND "ts" < ${sql.int(scope.to)}${filterSql(sql, filters)}`;
  const parts = [rolled, raw && `SELECT "site", "ts", "total_duration", "scroll" FROM page`].filter((p): p is string => p !== null);
  if (parts.length === 0) return null;
  return `${raw ? `${raw},` : ''}
    engaged AS (${parts.join(' UNION ALL ')})`;
}
