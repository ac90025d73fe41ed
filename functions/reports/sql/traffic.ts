/**
 * Traffic counts: canonical human pageviews and visitors per site and
 * bucket, and per site over the whole range. The rows are counted once per
 * bucket plan and once for the whole range (distinct counts do not add up
 * across buckets); DuckDB and ClickHouse count one site's sealed days from
 * the quarter-hour slots of their daily rollups. `trafficRows` puts the
 * counts and the engagement (traffic-engagement.ts) together.
 */
import type { FilterClause } from '#domain/reports/filter.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { SiteRef, TrafficRow, TrafficScope } from '#ports/report-store.ts';
import { rolledDays, UNFILTERED, variantOf, type RollupRead } from '../plan.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import { UNHASHED } from './dialects/clickhouse.ts';
import { DAY as CLICKHOUSE_DAY, ofNamedVariantBuilds, onlyDays, readsSealed, rowsOutside, type RolledDays, type RolledPart, type RolledTables } from './dialects/clickhouse-rollups.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { CANONICAL, CANONICAL_COLUMNS, UNIQUE_WITHOUT_HASH, VISITORS as DUCKDB_VISITORS, type DuckDbSql } from './dialects/duckdb.ts';
import { DAY as DUCKDB_DAY, dayNamed, ofVariant, ROLLUP_SLOTS, rowsOutsideRollups, stillBuilt } from './dialects/duckdb-rollups.ts';
import { FIRST_SLICE_STORES, type Report } from './report.ts';
import { sumRows } from './rolled-merge.ts';
import { rawBucket, rowRanges, slotBuckets, type SealedDays } from './sealed-days.ts';
import { bucketExpression, filterColumns, filterSql, num, numOrNull, type SqlText } from './text.ts';


/**
 * DuckDB: visitors per bucket from the `visitor_first` flags (the earliest
 * canonical pageview of each visitor hash on its site and UTC day, set by the
 * writer). A visitor seen in a bucket either has its first pageview there (a
 * flag counts it) or had it earlier on the same UTC day, and then was seen in
 * the "carried" part of the bucket: from its start to the next UTC midnight.
 * Only that part needs a distinct count, less the flags it holds, which the
 * flag count already has. Buckets starting at UTC midnight carry nothing.
 */
function visitorsByFirstFlags(sql: SqlText, bounds: readonly number[]): string {
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
export const trafficCounts: Query<[scope: TrafficScope, bounds: readonly number[]], DialectName> = {
  // Unfiltered counts use the writer's first-of-day flags; a filter may drop a visitor's
  // first pageview, so filtered counts take the distinct count over every row.
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, bounds) => duckdbCounts(sql, scope, bounds, scope.filters.length === 0 ? visitorsByFirstFlags(sql, bounds) : DUCKDB_VISITORS, 'ALL'),
  timestream: (sql, scope, bounds) => readTimeCounts(sql, scope, bounds),
  clickhouse: (sql, scope, bounds) => readTimeCounts(sql, scope, bounds),
};

/**
 * DuckDB, filtered: pageviews and visitors per site and bucket and per site over the range
 * (bucket NULL) from one scan. A filter may drop a visitor's first pageview, so visitors are
 * distinct counts here, and grouping sets count them per set.
 */
export const filteredTrafficCounts: Query<[scope: TrafficScope], 'duckdb'> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope) => duckdbCounts(sql, scope, scope.boundaries, DUCKDB_VISITORS, 'GROUPING SETS ((site, bucket), (site))'),
};

/** DuckDB: canonical pageviews and `visitors` of the scope's rows in `bounds`, by bucket, grouped by `groupBy`. */
function duckdbCounts(sql: DuckDbSql, scope: TrafficScope, bounds: readonly number[], visitors: string, groupBy: string): string {
  const where = sql.scope(scope.sites, bounds[0]!, bounds[bounds.length - 1]!, scope.filters);
  return `SELECT site, bucket, count(*) AS pageviews, ${visitors} AS visitors
     FROM (SELECT *, ${bucketExpression(sql, bounds)} AS bucket FROM events WHERE ${CANONICAL} AND ${where})
     GROUP BY ${groupBy}`;
}

/** One site's range from the first of its buckets' bounds to the last. */
export const siteRange = (scope: TrafficScope) => {
  const bounds = scope.boundaries;
  return { ...(scope.sites[0] as SiteRef), from: bounds[0] as number, to: bounds[bounds.length - 1] as number };
};

/** The rollup read of a traffic scope: its sites over its buckets. */
export const trafficRead = (scope: TrafficScope): RollupRead => {
  const bounds = scope.boundaries;
  return { sites: scope.sites, from: bounds[0] as number, to: bounds[bounds.length - 1] as number, filters: scope.filters, bounds };
};

/**
 * DuckDB, from the rollups: pageviews and visitors per bucket (`part` 'bucket', when there is more than one) and over the range (`part` 'total'), as the CTE `counts`,
 * from the slots of the filters' variant (plan.ts rollupVariant) and the rows outside them that pass the filters. The writer's
 * first-of-day flags count a site's raw visitors; a filter may drop a visitor's flagged pageview, so under one
 * the raw rows' visitors are distinct hashes per bucket and UTC day.
 */
function countsCte(sql: DuckDbSql, site: SiteRef, bounds: readonly number[], days: SealedDays, filters: readonly FilterClause[]): string {
  const range = { ...site, from: bounds[0] as number, to: bounds[bounds.length - 1] as number, filters };
  const variant = variantOf(filters);
  const rawVisitors = (b: readonly number[]) => (variant === UNFILTERED ? visitorsByFirstFlags(sql, b) : DUCKDB_VISITORS);
  const rawGroup = variant === UNFILTERED ? '' : `, ${DUCKDB_DAY}`;
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
 * ClickHouse, from the rollups: raw rows' parts 'bucket' and 'total' from one read of them (a second SELECT naming them would
 * read them again): per bucket and UTC day the distinct visitors' state, merged per UTC day for
 * the total (visitor hashes do not repeat across UTC days, so days add up).
 */
function rawBucketsAndTotal(raw: string, bucket: string): string {
  return `SELECT x.1 AS "part", x.2 AS "bucket", x.3 AS "pageviews", x.4 AS "visitors" FROM (
      SELECT groupArray(tuple('bucket', "bucket", "pageviews", finalizeAggregation("distinct") + "unhashed")) AS "per",
             sum("pageviews") AS "day_pageviews", uniqExactMerge("distinct") + sum("unhashed") AS "day_visitors"
      FROM (
        SELECT toUInt32(${bucket}) AS "bucket", ${CLICKHOUSE_DAY} AS "utc_day", count() AS "pageviews", uniqExactState("visitor") AS "distinct",
               ${UNHASHED} AS "unhashed"
        FROM ${raw} AS r GROUP BY "bucket", "utc_day"
      ) AS d GROUP BY "utc_day"
    ) AS g
    ARRAY JOIN arrayPushBack("per", tuple('total', toUInt32(0), "day_pageviews", "day_visitors")) AS x`;
}

/**
 * ClickHouse, from the rollups: one site's pageviews and visitors under the filters, from the
 * slots of the named days that can answer these buckets (plan.ts rolledDays) and the rows of the
 * rest of the range: rows of `part` 'bucket' (when there is more than one) and
 * 'total', partial sums of `part`. Raw rows count visitors per UTC day, summed. A slot keeps no
 * row's labels: under filters no variant answers, the counts come from rows.
 */
function clickhouseRolledCounts(sql: ClickHouseSql, tables: RolledTables, days: RolledDays, part: RolledPart, scope: TrafficScope): string | null {
  const [site, bounds, filters] = [scope.sites[0] as SiteRef, scope.boundaries, scope.filters];
  const range = siteRange(scope);
  const answered = rolledDays('slots', days.built, { ...range, filters, bounds }, days.variant);
  const slotDays = onlyDays(days, answered);
  const slots =
    slotDays.built.length === 0 || !readsSealed(part)
      ? null
      : `(SELECT "day" AS day, toUInt32("slot") AS slot, "pageviews", "firsts", "lasts", "unhashed" FROM ${tables.slots}
          WHERE ${ofNamedVariantBuilds(sql, site, slotDays)})`;
  const outside = rowsOutside(sql, tables, range, days, answered, ['pageview'], ['visitor', 'unique', 'bot', ...filterColumns(filters)], part);
  const ranges = outside.ranges;
  const raw = outside.rows && `(SELECT * FROM ${outside.rows} AS c WHERE ${sql.notBot}${filterSql(sql, filters)})`;
  const sources: string[] = [];
  if (slots) {
    // One read of the slots: each slot counts toward its bucket and the total.
    const total = `tuple('total', toUInt32(0), "pageviews", "firsts" + "unhashed")`;
    const slot = bounds.length > 2 ? slotBuckets(sql, bounds, slotDays) : null;
    const each = slot ? `[tuple('bucket', toUInt32(${slot.bucket}), "pageviews", if(${slot.fromDayStart}, "firsts", "lasts") + "unhashed"), ${total}]` : `[${total}]`;
    // The array is made below the projection, whose aliases name the slots' columns.
    sources.push(`SELECT x.1 AS "part", x.2 AS "bucket", x.3 AS "pageviews", x.4 AS "visitors" FROM (SELECT ${each} AS "per" FROM ${slots} AS s) AS a ARRAY JOIN "per" AS x`);
  }
  if (raw) sources.push(bounds.length > 2 ? rawBucketsAndTotal(raw, rawBucket(sql, bounds, ranges)) : `SELECT 'total' AS "part", toUInt32(0) AS "bucket", count() AS "pageviews", ${sql.visitors} AS "visitors" FROM ${raw} AS r GROUP BY ${CLICKHOUSE_DAY}`);
  if (sources.length === 0) return null;
  return `SELECT "part", if("part" = 'total', NULL, toNullable("bucket")) AS "bucket", sum("pageviews") AS "pageviews", sum("visitors") AS "visitors"
    FROM (${sources.join(' UNION ALL ')}) AS p GROUP BY "part", "bucket"`;
}

/**
 * DuckDB, from the rollups: one site's pageviews and visitors under the filters (none, or one
 * clause: plan.ts rollupVariant), rows of `part` 'bucket' and 'total'. Every row carries
 * `still_built`; one row with a null part stands for an empty answer.
 */
function duckdbRolledCounts(sql: DuckDbSql, days: SealedDays, scope: TrafficScope): string {
  const [site, filters] = [scope.sites[0] as SiteRef, scope.filters];
  return `
    WITH ${countsCte(sql, site, scope.boundaries, days, filters)}
    SELECT c.still_built, a.* FROM ${stillBuilt(sql, site, days, variantOf(filters))} AS c LEFT JOIN counts AS a ON true`;
}

/** Per-bucket counts (null when the plan is one bucket: the whole range is then bucket 0), and the whole range's. */
export type TrafficCounts = [perBucket: ResultRow[] | null, totals: ResultRow[]];

/** A rolled read's rows of each part, of its one site. */
function partsOf(rows: readonly ResultRow[], scope: TrafficScope): TrafficCounts {
  const site = (scope.sites[0] as SiteRef).site;
  const part = (name: string) => rows.filter((r) => r.part === name).map((r) => ({ ...r, site }));
  return [scope.boundaries.length > 2 ? part('bucket') : null, part('total')];
}

export const trafficCountsReport: Report<[scope: TrafficScope], TrafficCounts> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, scope) => {
    const bounds = scope.boundaries;
    // DuckDB counts filtered buckets and the range in one scan.
    if (db.dialect === 'duckdb' && scope.filters.length > 0 && bounds.length > 2) {
      const rows = await db.run(filteredTrafficCounts, scope);
      return [rows.filter((r) => r.bucket !== null), rows.filter((r) => r.bucket === null)];
    }
    return Promise.all([bounds.length > 2 ? db.run(trafficCounts, scope, bounds) : null, db.run(trafficCounts, scope, [bounds[0]!, bounds[bounds.length - 1]!])]);
  },
  rolled: {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : { need: 'slots', read: trafficRead, statement: duckdbRolledCounts, answer: partsOf },
    clickhouse: {
      need: 'slots',
      read: trafficRead,
      split: true,
      statement: clickhouseRolledCounts,
      answer: (rows, scope) => partsOf(sumRows(rows, ['part', 'bucket'], ['pageviews', 'visitors']), scope),
    },
  },
};

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
