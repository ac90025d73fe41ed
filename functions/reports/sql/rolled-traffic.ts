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
 * total is read, but no append is.
 */
import { DAY_MS } from '#domain/event-flags/flag-index.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { CANONICAL, type DuckDbSql } from './dialects/duckdb.ts';
import { duckdbEngagedPages } from './engaged-pages.ts';
import { dayNamed, ROLLUP_PAGES, ROLLUP_SLOTS, rowsOutsideRollups, SLOT_MS, stillBuilt } from './rolled.ts';
import { rowRanges, type SealedDays } from './sealed-days.ts';
import { bucketAt, bucketExpression, sqlInteger } from './text.ts';
import { thresholdCounts } from './retention.ts';
import { visitorsByFirstFlags } from './traffic.ts';

/** The named days whose slots can answer buckets with these boundaries: at most one boundary inside the day, on a slot's start. */
export function trafficDays(built: readonly number[], bounds: readonly number[]): number[] {
  return built.filter((day) => {
    const inside = bounds.filter((b) => b > day * DAY_MS && b < (day + 1) * DAY_MS);
    return inside.length === 0 || (inside.length === 1 && (inside[0] as number) % SLOT_MS === 0);
  });
}

/**
 * A slot row's bucket without a comparison per boundary: per named day (by its place in the
 * range), the bucket holding its start and the slot where the next one starts (96 when none
 * does), as constant lists. Slots before that split lie in a part that starts at the day's start.
 */
function slotBuckets(bounds: readonly number[], days: SealedDays): { bucket: string; fromDayStart: string } {
  const first = new Array<number>(days.last - days.first + 1).fill(0);
  const split = new Array<number>(days.last - days.first + 1).fill(DAY_MS / SLOT_MS);
  for (const day of days.built) {
    const i = day - days.first;
    first[i] = bucketAt(bounds, day * DAY_MS);
    const next = bounds[first[i] + 1] as number;
    if (next < (day + 1) * DAY_MS) split[i] = (next - day * DAY_MS) / SLOT_MS;
  }
  const at = `[day - ${sqlInteger(days.first - 1)}]`;
  return {
    bucket: `(${listOf(first)}${at} + CASE WHEN slot < ${listOf(split)}${at} THEN 0 ELSE 1 END)`,
    fromDayStart: `slot < ${listOf(split)}${at}`,
  };
}

/** The bucket of a raw row: a comparison tree over only the buckets each raw range touches. */
function rawBucket(sql: DuckDbSql, bounds: readonly number[], ranges: readonly [number, number][]): string {
  if (ranges.length === 0) return '0';
  const trees = ranges.map(([a, b]) => [b, bucketExpression(sql, bounds, bucketAt(bounds, a), bucketAt(bounds, b - 1))] as const);
  return `(CASE ${trees.map(([end, tree]) => `WHEN ts < ${sqlInteger(end)} THEN ${tree}`).join(' ')} END)`;
}

/** The named days' slots of one rollup table. */
const slotRows = (sql: DuckDbSql, site: SiteRef, days: SealedDays, table: string, columns: string) =>
  `SELECT day, slot, ${columns} FROM ${table} WHERE ${sql.sites([site])} AND ${dayNamed(sql, days)}`;

const listOf = (values: readonly number[]) => `[${values.map(sqlInteger).join(', ')}]`;

/** Pageviews and visitors per bucket (`part` 'bucket', when there is more than one) and over the range (`part` 'total'), as the CTE `counts`. */
function countsCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays): string {
  const range = { ...site, from: bounds[0] as number, to: bounds[bounds.length - 1] as number };
  const slot = slotBuckets(bounds, days);
  const perBucket =
    bounds.length > 2
      ? `SELECT 'bucket' AS part, ${slot.bucket} AS bucket, pageviews, CASE WHEN ${slot.fromDayStart} THEN firsts ELSE lasts END + unhashed AS visitors
           FROM slots
         UNION ALL
         SELECT 'bucket', bucket, count(*), ${visitorsByFirstFlags(bounds)} FROM (SELECT *, ${rawBucket(sql, bounds, rowRanges(range, days))} AS bucket FROM raw)
         GROUP BY bucket
         UNION ALL`
      : '';
  return `
    slots AS (${slotRows(sql, site, days, ROLLUP_SLOTS, 'pageviews, firsts, lasts, unhashed')}),
    raw AS MATERIALIZED (SELECT ts, visitor_key, visitor_first, "unique" FROM ${rowsOutsideRollups(sql, range, days)} AS e WHERE ${CANONICAL}),
    counts AS (
      SELECT part, bucket, sum(pageviews) AS pageviews, sum(visitors) AS visitors FROM (
        ${perBucket}
        SELECT 'total' AS part, NULL AS bucket, pageviews, firsts + unhashed AS visitors FROM slots
        UNION ALL
        SELECT 'total', NULL, count(*), ${visitorsByFirstFlags([range.from, range.to])} FROM (SELECT *, 0 AS bucket FROM raw) GROUP BY bucket
      ) GROUP BY part, bucket
    )`;
}

/**
 * The engaged pages of the named days (stored) and of the rest of the range (joined now), as the
 * CTE `engaged` with `bucket` (null when `bounds` make one bucket), `total_duration` and `scroll`.
 */
function engagedCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays): string {
  const ranges = rowRanges({ from: bounds[0] as number, to: bounds[bounds.length - 1] as number }, days);
  const bucketed = bounds.length > 2;
  return `${duckdbEngagedPages(sql, [site], ranges, [])},
    engaged AS (
      SELECT ${bucketed ? slotBuckets(bounds, days).bucket : 'NULL'} AS bucket, total_duration, scroll
      FROM (${slotRows(sql, site, days, ROLLUP_PAGES, 'total_duration, scroll')})
      UNION ALL
      SELECT ${bucketed ? rawBucket(sql, bounds, ranges) : 'NULL'}, total_duration, scroll FROM page
    )`;
}

/**
 * Median duration (of totals of at least 5 s) and mean scroll per bucket and over the range
 * (bucket null), as traffic.ts's trafficEngagement, as the CTE `engagement`. With one bucket only
 * the range's row is made (the caller reads it as bucket 0's too).
 */
function engagementCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays): string {
  return `${engagedCte(sql, site, bounds, days)},
    engagement AS (
      SELECT bucket, median(total_duration) FILTER (WHERE total_duration >= 5) AS duration, avg(scroll) AS scrolled
      FROM engaged GROUP BY ${bounds.length > 2 ? 'GROUPING SETS ((bucket), ())' : 'bucket'}
    )`;
}

/**
 * One site's pageviews and visitors: rows of `part` 'bucket' and 'total'. Every row carries
 * `still_built`; one row with a null part stands for an empty answer.
 */
export function rolledTrafficCounts(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays): string {
  return `
    WITH ${countsCte(sql, site, bounds, days)}
    SELECT c.still_built, a.* FROM ${stillBuilt(sql, site, days)} AS c LEFT JOIN counts AS a ON true`;
}

/** One site's engagement: duration and scroll per bucket (null: the range), each row with `still_built`, as rolledTrafficCounts. */
export function rolledTrafficEngagement(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays): string {
  return `
    WITH ${engagementCte(sql, site, bounds, days)}
    SELECT c.still_built, 'engagement' AS part, a.* FROM ${stillBuilt(sql, site, days)} AS c LEFT JOIN engagement AS a ON true`;
}

/** Retention (retention.ts) over the engaged pages of the named days (stored) and of the rest (joined now). Carries `still_built`. */
export function rolledRetention(sql: DuckDbSql, scope: SiteRef & { from: number; to: number }, days: SealedDays, durations: readonly number[], scrolls: readonly number[]): string {
  const engaged = engagedCte(sql, scope, [scope.from, scope.to], days);
  return `
    WITH ${engaged}
    SELECT c.still_built, t.* FROM ${stillBuilt(sql, scope, days)} AS c CROSS JOIN (
      SELECT ${thresholdCounts(sql, durations, scrolls)} FROM engaged AS page) AS t`;
}
