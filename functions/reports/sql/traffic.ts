/**
 * Traffic: canonical human pageviews and visitors per site and bucket, and
 * engagement (median duration of pages of at least 5 s, mean scroll) per site
 * and bucket and over the whole range. The store runs the counts once per
 * bucket plan and once for the whole range (distinct counts do not add up
 * across buckets); `trafficRows` puts the three answers together.
 */
import type { TrafficRow, TrafficScope } from '#ports/report-store.ts';
import type { Query, ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import { CANONICAL, UNIQUE_WITHOUT_HASH, VISITORS as DUCKDB_VISITORS, type DuckDbSql } from './dialects/duckdb.ts';
import { engagedPages } from './engaged-pages.ts';
import { bucketExpression, filterColumns, filterSql, num, numOrNull, type SqlText } from './text.ts';

const DAY_MS = 86_400_000;

/**
 * DuckDB: visitors per bucket from the `visitor_first` flags (the earliest
 * canonical pageview of each visitor hash on its site and UTC day, set by the
 * writer). A visitor seen in a bucket either has its first pageview there (a
 * flag counts it) or had it earlier on the same UTC day, and then was seen in
 * the "carried" part of the bucket: from its start to the next UTC midnight.
 * Only that part needs a distinct count, less the flags it holds, which the
 * flag count already has. Buckets starting at UTC midnight carry nothing.
 */
export function visitorsByFirstFlags(sql: SqlText, bounds: readonly number[]): string {
  const carriedUntil = bounds.slice(0, -1).map((start, i) => {
    const end = Number(bounds[i + 1]);
    return start % DAY_MS === 0 ? start : Math.min(end, (Math.floor(start / DAY_MS) + 1) * DAY_MS);
  });
  const carried = carriedUntil.length === 1 ? `ts < ${sql.int(carriedUntil[0]!)}` : `ts < ${sql.intList(carriedUntil)}[bucket + 1]`;
  return `count(*) FILTER (WHERE visitor_first)
    + count(DISTINCT visitor_key) FILTER (WHERE ${carried})
    - count(*) FILTER (WHERE visitor_first AND ${carried})
    + ${UNIQUE_WITHOUT_HASH}`;
}

/** Timestream and ClickHouse: distinct counts over their canonical pageviews. */
function readTimeCounts(sql: ReadTimeSql, scope: TrafficScope, bounds: readonly number[]): string {
  const rows = sql.canonical('pageview', scope.sites, bounds[0]!, bounds[bounds.length - 1]!, ['visitor', 'unique', 'bot', ...filterColumns(scope.filters)]);
  return `
    SELECT "site", "bucket", count(*) AS "pageviews", ${sql.visitors} AS "visitors"
    FROM (
      SELECT "site", "visitor", "unique", ${bucketExpression(sql, bounds)} AS "bucket"
      FROM ${rows} AS e
      WHERE ${sql.notBot}${filterSql(sql, scope.filters)}
    ) AS b
    GROUP BY "site", "bucket"`;
}

/** Pageviews and visitors per site and bucket of `bounds` (the scope's boundaries, or its first and last for the whole range). */
export const trafficCounts: Query<[scope: TrafficScope, bounds: readonly number[]]> = {
  // Unfiltered counts use the writer's first-of-day flags; a filter may drop a visitor's
  // first pageview, so filtered counts take the distinct count over every row.
  duckdb: (sql, scope, bounds) => duckdbCounts(sql, scope, bounds, scope.filters.length === 0 ? visitorsByFirstFlags(sql, bounds) : DUCKDB_VISITORS, 'ALL'),
  timestream: (sql, scope, bounds) => readTimeCounts(sql, scope, bounds),
  clickhouse: (sql, scope, bounds) => readTimeCounts(sql, scope, bounds),
};

/**
 * DuckDB, filtered: pageviews and visitors per site and bucket and per site over the range
 * (bucket NULL) from one scan. A filter may drop a visitor's first pageview, so visitors are
 * distinct counts here, and grouping sets count them per set.
 */
export function filteredTrafficCounts(sql: DuckDbSql, scope: TrafficScope): string {
  return duckdbCounts(sql, scope, scope.boundaries, DUCKDB_VISITORS, 'GROUPING SETS ((site, bucket), (site))');
}

/** DuckDB: canonical pageviews and `visitors` of the scope's rows in `bounds`, by bucket, grouped by `groupBy`. */
function duckdbCounts(sql: DuckDbSql, scope: TrafficScope, bounds: readonly number[], visitors: string, groupBy: string): string {
  const where = sql.scope(scope.sites, bounds[0]!, bounds[bounds.length - 1]!, scope.filters);
  return `SELECT site, bucket, count(*) AS pageviews, ${visitors} AS visitors
     FROM (SELECT *, ${bucketExpression(sql, bounds)} AS bucket FROM events WHERE ${CANONICAL} AND ${where})
     GROUP BY ${groupBy}`;
}

/** Median duration (of totals of at least 5 s) and mean scroll per site and bucket, and per site over the range (bucket NULL). */
export const trafficEngagement: Query<[scope: TrafficScope]> = {
  duckdb: (sql, scope) => {
    const bounds = scope.boundaries;
    return `WITH ${engagedPages.duckdb(sql, scope.sites, bounds[0]!, bounds[bounds.length - 1]!, scope.filters)}
       SELECT site, ${bucketExpression(sql, bounds)} AS bucket,
              median(total_duration) FILTER (WHERE total_duration >= 5) AS duration, avg(scroll) AS scrolled
       FROM page
       GROUP BY GROUPING SETS ((site, bucket), (site))`;
  },
  /**
   * The median is exact: the qualifying totals sorted (array_sort puts the
   * NULLs of the others last), then the middle one or the mean of the middle two.
   */
  timestream: (sql, scope) => {
    const bounds = scope.boundaries;
    return `
    WITH ${engagedPages.timestream(sql, scope.sites, bounds[0]!, bounds[bounds.length - 1]!, scope.filters)},
    b AS (
      SELECT "site", ${bucketExpression(sql, bounds)} AS "bucket", "total_duration", "scroll" FROM page
      UNION ALL
      SELECT "site", CAST(NULL AS INTEGER) AS "bucket", "total_duration", "scroll" FROM page
    ),
    g AS (
      SELECT "site", "bucket", avg("scroll") AS "scrolled",
             count(CASE WHEN "total_duration" >= 5 THEN 1 END) AS "n",
             array_sort(array_agg(CASE WHEN "total_duration" >= 5 THEN "total_duration" END)) AS "sorted"
      FROM b
      GROUP BY "site", "bucket"
    )
    SELECT "site", "bucket", "scrolled",
           CASE WHEN "n" = 0 THEN NULL
                WHEN "n" % 2 = 1 THEN element_at("sorted", "n" / 2 + 1)
                ELSE (element_at("sorted", "n" / 2) + element_at("sorted", "n" / 2 + 1)) / 2 END AS "duration"
    FROM g`;
  },
  clickhouse: (sql, scope) => {
    const bounds = scope.boundaries;
    return `WITH ${engagedPages.clickhouse(sql, scope.sites, bounds[0]!, bounds[bounds.length - 1]!, scope.filters)} ${engagementByBucket(sql, bounds, 'page')}`;
  },
};

/**
 * ClickHouse: median duration and mean scroll per site and bucket and per site (bucket NULL)
 * over the engaged pages of `pages`, then a `stale` column (NULL: the rolled reads add a sentinel
 * row that carries it). The pages are read once: each bucket keeps its qualifying totals, and the
 * range's row is made from the buckets' (a CTE would be read again by each SELECT naming it).
 * quantileExactInclusive interpolates: the middle total, or the mean of the middle two, as
 * DuckDB's median.
 */
export function engagementByBucket(sql: ClickHouseSql, bounds: readonly number[], pages: string): string {
  return `
    SELECT toNullable("site") AS "site", x.1 AS "bucket", if(x.4 = 0, NULL, x.3 / x.4) AS "scrolled",
           if(length(x.2) = 0, NULL, arrayReduce('quantileExactInclusive(0.5)', x.2)) AS "duration", CAST(NULL AS Nullable(UInt64)) AS "stale"
    FROM (
      SELECT "site", groupArray(tuple(toNullable("bucket"), "totals", "scrolls", "scrolled")) AS "per"
      FROM (
        SELECT "site", ${bucketExpression(sql, bounds)} AS "bucket", groupArrayIf(toFloat64(assumeNotNull("total_duration")), "total_duration" >= 5) AS "totals",
               toFloat64(coalesce(sum("scroll"), 0)) AS "scrolls", count("scroll") AS "scrolled"
        FROM ${pages} GROUP BY "site", "bucket"
      ) AS b GROUP BY "site"
    ) AS s
    ARRAY JOIN arrayPushBack("per", tuple(NULL, arrayFlatten(arrayMap(t -> t.2, "per")), arraySum(arrayMap(t -> t.3, "per")), arraySum(arrayMap(t -> t.4, "per")))) AS x`;
}

const bucketOf = (r: ResultRow) => (r.bucket === null || r.bucket === undefined ? null : num(r.bucket));
const keyOf = (site: unknown, bucket: number | null) => `${String(site)}\n${bucket === null ? '' : String(bucket)}`;

/**
 * The rows of a traffic answer: buckets in order per site (`perBucket` null
 * when the plan is one bucket: the whole range is then bucket 0), then the
 * whole-range rows (bucket null), each with its engagement.
 */
export function trafficRows(perBucket: readonly ResultRow[] | null, totals: readonly ResultRow[], engagement: readonly ResultRow[]): TrafficRow[] {
  const extra = new Map(engagement.map((r) => [keyOf(r.site, bucketOf(r)), r]));
  const row = (r: ResultRow, bucket: number | null): TrafficRow => {
    const e = extra.get(keyOf(r.site, bucket));
    return { site: String(r.site), bucket, pageviews: num(r.pageviews), visitors: num(r.visitors), duration: numOrNull(e?.duration), scrolled: numOrNull(e?.scrolled) };
  };
  const buckets = (perBucket ?? totals).map((r) => row(r, bucketOf(r) ?? 0));
  // Stores answer groups in no particular order: callers list days as they come.
  buckets.sort((a, b) => (a.site < b.site ? -1 : a.site > b.site ? 1 : (a.bucket as number) - (b.bucket as number)));
  return [...buckets, ...totals.map((r) => row(r, null))];
}
