/**
 * Traffic engagement: median duration (of pages' totals of at least 5 s) and
 * mean scroll per site and bucket and per site over the whole range, over
 * the engaged pages (engaged-pages.ts). DuckDB and ClickHouse read one site's
 * sealed days' pages from their daily rollups.
 */
import type { FilterClause } from '#domain/reports/filter.ts';
import type { SiteRef, TrafficScope } from '#ports/report-store.ts';
import { UNFILTERED } from '../plan.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import type { RolledDays, RolledPart, RolledTables } from './dialects/clickhouse-rollups.ts';
import type { DuckDbSql } from './dialects/duckdb.ts';
import { stillBuilt } from './dialects/duckdb-rollups.ts';
import { clickhouseRolledEngaged, duckdbRolledEngaged, engagedPages } from './engaged-pages.ts';
import { FIRST_SLICE_STORES, type Report } from './report.ts';
import { engagementOfParts } from './rolled-merge.ts';
import type { SealedDays } from './sealed-days.ts';
import { bucketExpression } from './text.ts';
import { siteRange, trafficRead } from './traffic.ts';

/** Median duration (of totals of at least 5 s) and mean scroll per site and bucket, and per site over the range (bucket NULL). */
export const trafficEngagement: Query<[scope: TrafficScope], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope) => {
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

/**
 * Median duration (of totals of at least 5 s) and mean scroll per bucket and over the range
 * (bucket null), as trafficEngagement, as the CTE `engagement` (DuckDB, from the rollups). With one bucket only
 * the range's row is made (the caller reads it as bucket 0's too).
 *
 * The range's row is read off the count of each distinct total, not from a second sort of every
 * page: totals are sums of whole seconds (the collector rounds each duration), so there are few
 * of them (the bench's 365-day statement: 26 → 21 ms). Its median is the mean of the totals at
 * the middle two places of their running count (one place when the count is odd).
 */
function duckdbEngagementCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  const perBucket = `SELECT bucket, median(total_duration) FILTER (WHERE total_duration >= 5) AS duration, avg(scroll) AS scrolled FROM engaged GROUP BY bucket`;
  if (bounds.length <= 2) return `${duckdbRolledEngaged(sql, site, bounds, days, filters)}, engagement AS (${perBucket})`;
  return `${duckdbRolledEngaged(sql, site, bounds, days, filters)},
    totals AS (SELECT total_duration, count(*) AS n, sum(scroll) AS scroll_sum, count(scroll) AS scrolls FROM engaged GROUP BY total_duration),
    running AS (SELECT total_duration, sum(n) OVER (ORDER BY total_duration) AS upto, sum(n) OVER () AS n FROM totals WHERE total_duration >= 5),
    engagement AS (
      ${perBucket}
      UNION ALL
      SELECT NULL, (SELECT (min(total_duration) FILTER (WHERE upto >= (n + 1) // 2) + min(total_duration) FILTER (WHERE upto >= n // 2 + 1)) / 2 FROM running),
             sum(scroll_sum) / sum(scrolls)
      FROM totals
    )`;
}

/** DuckDB, from the rollups: one site's engagement under the filters, duration and scroll per bucket (null: the range), each row with `still_built`. */
function duckdbRolledEngagement(sql: DuckDbSql, days: SealedDays, scope: TrafficScope): string {
  const [site, bounds, filters] = [scope.sites[0] as SiteRef, scope.boundaries, scope.filters];
  return `
    WITH ${duckdbEngagementCte(sql, site, bounds, days, filters)}
    SELECT c.still_built, 'engagement' AS part, a.* FROM ${stillBuilt(sql, site, days, UNFILTERED)} AS c LEFT JOIN engagement AS a ON true`;
}

/**
 * ClickHouse, from the rollups: the engagement in parts to add up (rolled-merge.ts engagementOfParts): per
 * site and bucket of `bounds`, over the engaged pages `part` reads, each qualifying total (at least
 * 5 s) with how many pages have it (`totals`), and the scrolls' sum and count.
 */
function clickhouseRolledEngagement(sql: ClickHouseSql, tables: RolledTables, days: RolledDays, part: RolledPart, scope: TrafficScope): string | null {
  const bounds = scope.boundaries;
  const engaged = clickhouseRolledEngaged(sql, tables, siteRange(scope), days, scope.filters, part);
  return (
    engaged &&
    `WITH ${engaged}
    SELECT "site", toUInt32("bucket") AS "bucket", groupArrayIf(tuple(assumeNotNull("total_duration"), "pages"), "total_duration" >= 5) AS "totals",
           sum("scrolls") AS "scrolls", sum("scrolled") AS "scrolled"
    FROM (
      SELECT "site", ${bucketExpression(sql, bounds)} AS "bucket", "total_duration", count() AS "pages",
             toFloat64(coalesce(sum("scroll"), 0)) AS "scrolls", count("scroll") AS "scrolled"
      FROM engaged GROUP BY "site", "bucket", "total_duration"
    ) AS d GROUP BY "site", "bucket"`
  );
}

export const trafficEngagementReport: Report<[scope: TrafficScope], ResultRow[]> = {
  stores: FIRST_SLICE_STORES,
  rows: (db, scope) => db.run(trafficEngagement, scope),
  rolled: {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : {
      need: 'pages',
      read: trafficRead,
      statement: duckdbRolledEngagement,
      answer: (rows, scope) => {
        const site = (scope.sites[0] as SiteRef).site;
        const engagement = rows.filter((r) => r.part === 'engagement').map((r) => ({ ...r, site }));
        // One bucket: the range's engagement is also bucket 0's.
        return scope.boundaries.length > 2 ? engagement : [...engagement, ...engagement.map((r) => ({ ...r, bucket: 0 }))];
      },
    },
    clickhouse: { need: 'pages', read: trafficRead, split: true, statement: clickhouseRolledEngagement, answer: (rows) => engagementOfParts(rows) },
  },
};
