/**
 * DuckDB only: the overview's traffic (pageviews, visitors, median duration
 * and mean scroll per bucket and over the range) from the quarter-hour slot
 * rollups of sealed whole UTC days (adapters/duckdb/rollups.ts), plus the raw
 * rows of every other part of the range. The answers equal traffic.ts's over
 * the rows.
 *
 * Visitors: visitor hashes never repeat across UTC days, so a bucket's
 * visitors are the sum over the UTC days it touches of the distinct hashes of
 * its part of each day. A part that starts at the day's start holds exactly
 * the hashes whose first pageview of the day falls in it; a part that ends at
 * the day's end, those whose last one does. Both are sums of the slots'
 * `firsts` or `lasts`, so a rolled day may hold at most one bucket boundary,
 * on a slot's start (trafficDays): every local day and hour boundary of a
 * time zone is one. Days with more (hourly buckets) are read from rows.
 *
 * Engagement and retention: the stored engaged pages of the named days
 * (their appends summed in when the rollup was built) and the pages of the
 * rest of the range, joined now; a median cannot be summed, so every page's
 * total is read, but no append is. A stored page keeps its ts, so the named
 * days include the sealed ones the range only cuts into (its first day, and
 * a previous period's last): only the open days are joined from rows. A stored page keeps the columns filters
 * compare, so filtered engagement reads the same rollup. The counts of a
 * scope filtered by one `dim:value` clause read the slots built from the
 * rows that clause keeps (sealed-days.ts rollupVariant): a visitor's first
 * pageview under a filter is not one the site's slots keep.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import type { ReportScope, SiteRef } from '#ports/report-store.ts';
import { CANONICAL, CANONICAL_COLUMNS, VISITORS, type DuckDbSql } from './dialects/duckdb.ts';
import { duckdbEngagedPages } from './engaged-pages.ts';
import { DAY, dayNamed, ofVariant, ROLLUP_PAGES, ROLLUP_SLOTS, rowsOutsideRollups, stillBuilt } from './rolled.ts';
import { dayRanges, rawBucket, rowRanges, SLOT_MS, slotBuckets, trafficDays, UNFILTERED, variantOf, wholeDays, type SealedDays } from './sealed-days.ts';
import { thresholdCounts } from './retention.ts';
import { filterSql } from './text.ts';
import { visitorsByFirstFlags } from './traffic.ts';


/**
 * Pageviews and visitors per bucket (`part` 'bucket', when there is more than one) and over the range (`part` 'total'), as the CTE `counts`,
 * from the slots of the filters' variant (rollupVariant) and the rows outside them that pass the filters. The writer's
 * first-of-day flags count a site's raw visitors; a filter may drop a visitor's flagged pageview, so under one
 * the raw rows' visitors are distinct hashes per bucket and UTC day.
 */
function countsCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  const range = { ...site, from: bounds[0] as number, to: bounds[bounds.length - 1] as number, filters };
  const variant = variantOf(filters);
  const rawVisitors = (b: readonly number[]) => (variant === UNFILTERED ? visitorsByFirstFlags(sql, b) : VISITORS);
  const rawGroup = variant === UNFILTERED ? '' : `, ${DAY}`;
  // Made only when used: its lists are bound parameters, and DuckDB refuses one the text leaves out.
  const slot = bounds.length > 2 ? slotBuckets(sql, bounds, days) : null;
  const perBucket =
    slot
      ? `SELECT 'bucket' AS part, ${slot.bucket} AS bucket, pageviews, CASE WHEN ${slot.fromDayStart} THEN firsts ELSE lasts END + unhashed AS visitors
           FROM slots
         UNION ALL
         SELECT 'bucket', bucket, count(*), ${rawVisitors(bounds)} FROM (SELECT *, ${rawBucket(sql, bounds, rowRanges(range, days))} AS bucket FROM raw)
         GROUP BY bucket${rawGroup}
         UNION ALL`
      : '';
  return `
    slots AS (SELECT day, slot, pageviews, firsts, lasts, unhashed FROM ${ROLLUP_SLOTS} WHERE ${ofVariant(sql, site, variant)} AND ${dayNamed(sql, days)}),
    raw AS MATERIALIZED (SELECT ts, visitor_key, visitor_first, "unique" FROM ${rowsOutsideRollups(sql, range, days, ['ts', 'visitor_key', 'visitor_first', 'unique', ...CANONICAL_COLUMNS])} AS e WHERE ${CANONICAL}),
    counts AS (
      SELECT part, bucket, sum(pageviews) AS pageviews, sum(visitors) AS visitors FROM (
        ${perBucket}
        SELECT 'total' AS part, NULL AS bucket, pageviews, firsts + unhashed AS visitors FROM slots
        UNION ALL
        SELECT 'total', NULL, count(*), ${rawVisitors([range.from, range.to])} FROM (SELECT *, 0 AS bucket FROM raw) GROUP BY bucket${rawGroup}
      ) GROUP BY part, bucket
    )`;
}

/**
 * A stored page's bucket: by its slot on the whole days slots can answer (a constant list per
 * day), else by comparing its ts with the boundaries of the parts of the other named days.
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
 * The engaged pages matching the filters of the named days (stored with the columns filters
 * compare) and of the rest of the range (joined now), as the CTE `engaged` with `bucket` (null when
 * `bounds` make one bucket), `total_duration` and `scroll`.
 */
function engagedCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  const [from, to] = [bounds[0] as number, bounds[bounds.length - 1] as number];
  const ranges = rowRanges({ from, to }, days);
  const bucketed = bounds.length > 2;
  // A stored page keeps its ts: the named days may be ones the range only cuts into.
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
 * Median duration (of totals of at least 5 s) and mean scroll per bucket and over the range
 * (bucket null), as traffic.ts's trafficEngagement, as the CTE `engagement`. With one bucket only
 * the range's row is made (the caller reads it as bucket 0's too).
 *
 * The range's row is read off the count of each distinct total, not from a second sort of every
 * page: totals are sums of whole seconds (the collector rounds each duration), so there are few
 * of them (the bench's 365-day statement: 26 → 21 ms). Its median is the mean of the totals at
 * the middle two places of their running count (one place when the count is odd).
 */
function engagementCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  const perBucket = `SELECT bucket, median(total_duration) FILTER (WHERE total_duration >= 5) AS duration, avg(scroll) AS scrolled FROM engaged GROUP BY bucket`;
  if (bounds.length <= 2) return `${engagedCte(sql, site, bounds, days, filters)}, engagement AS (${perBucket})`;
  return `${engagedCte(sql, site, bounds, days, filters)},
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

/**
 * One site's pageviews and visitors under the filters (none, or one clause: rollupVariant): rows of `part` 'bucket'
 * and 'total'. Every row carries `still_built`; one row with a null part stands for an empty answer.
 */
export function rolledTrafficCounts(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  return `
    WITH ${countsCte(sql, site, bounds, days, filters)}
    SELECT c.still_built, a.* FROM ${stillBuilt(sql, site, days, variantOf(filters))} AS c LEFT JOIN counts AS a ON true`;
}

/** One site's engagement under the filters: duration and scroll per bucket (null: the range), each row with `still_built`, as rolledTrafficCounts. */
export function rolledTrafficEngagement(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  return `
    WITH ${engagementCte(sql, site, bounds, days, filters)}
    SELECT c.still_built, 'engagement' AS part, a.* FROM ${stillBuilt(sql, site, days, UNFILTERED)} AS c LEFT JOIN engagement AS a ON true`;
}

/** Retention (retention.ts) over the engaged pages matching the filters, of the named days (stored) and of the rest (joined now). Carries `still_built`. */
export function rolledRetention(sql: DuckDbSql, scope: ReportScope, days: SealedDays, durations: readonly number[], scrolls: readonly number[]): string {
  const engaged = engagedCte(sql, scope, [scope.from, scope.to], days, scope.filters);
  return `
    WITH ${engaged}
    SELECT c.still_built, t.* FROM ${stillBuilt(sql, scope, days, UNFILTERED)} AS c CROSS JOIN (
      SELECT ${thresholdCounts(sql, durations, scrolls)} FROM engaged AS page) AS t`;
}
