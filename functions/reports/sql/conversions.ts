/**
 * Goals, funnels and event metadata (issue 37), from the rows of DuckDB and
 * ClickHouse (Timestream is frozen: it answers none). A visitor-day is a
 * visitor hash: hashes rotate with the UTC day's salt, so one person on two
 * days, or across UTC midnight, is two. Rows without a hash (imports) add
 * conversions and events but no visitor-day.
 *
 * - Goal stats: per goal, the canonical human rows it matches (conversions)
 *   and their distinct visitor-days; beside them every visitor-day with a
 *   canonical human pageview or event in the scope (the rate's denominator).
 * - Funnels: per visitor-day, its rows matching any step in arrival order
 *   (ts, then id), folded greedily: a row advances the visitor-day by one step
 *   when it matches the next one, so steps must come in order (others may come
 *   between) and one row is one step. The greedy walk reaches the longest
 *   prefix any ordered choice of rows could. Answered as visitor-days per
 *   level reached.
 * - Event metadata: the keys of one event's metadata objects, or one key's
 *   values, with counts and visitors; metadata that does not parse as an
 *   object (truncated at 4,096 characters) has no keys.
 */
import type { GoalMatch } from '#ports/goals.ts';
import type { BreakdownRow, ReportScope } from '#ports/report-store.ts';
import { WITHOUT_DUCKDB, type Query, type ResultRow } from './dialect.ts';
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import type { DuckDbSql } from './dialects/duckdb.ts';
import { MAINTAINED_STORES, type Report } from './report.ts';
import { filterColumns, filterSql, goalCondition, label, num } from './text.ts';

/** Canonical human pageviews and named custom events of the scope (DuckDB: a condition on `events`). */
const duckdbHumanRows = (sql: DuckDbSql, scope: ReportScope) =>
  `NOT bot AND NOT replay AND (kind = 'pageview' OR (kind = 'event' AND coalesce(event, '') <> '')) AND ${sql.scope([scope], scope.from, scope.to, scope.filters)}`;

/** ClickHouse: the same rows as a derived table and its condition, with `columns`. */
function clickhouseHumanRows(sql: ClickHouseSql, scope: ReportScope, columns: readonly string[]): string {
  const rows = sql.canonicalOf(['pageview', 'event'], [scope], [[scope.from, scope.to]], ['kind', 'bot', 'path', 'event', ...columns, ...filterColumns(scope.filters)]);
  return `${rows} AS e WHERE ${sql.notBot} AND ("kind" = 'pageview' OR coalesce("event", '') <> '')${filterSql(sql, scope.filters)}`;
}

type GoalArgs = [scope: ReportScope, goals: readonly GoalMatch[]];

/** One row: `visitors` (the scope's visitor-days), and per goal i `c<i>` conversions and `v<i>` visitor-days. */
export const goalStats: Query<GoalArgs> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, goals) => {
    const perGoal = goals.map((g, i) => {
      const match = goalCondition(sql, g);
      return `, count(*) FILTER (WHERE ${match}) AS c${i}, count(DISTINCT visitor_key) FILTER (WHERE ${match}) AS v${i}`;
    });
    return `SELECT count(DISTINCT visitor_key) AS visitors${perGoal.join('')} FROM events WHERE ${duckdbHumanRows(sql, scope)}`;
  },
  clickhouse: (sql, scope, goals) => {
    const perGoal = goals.map((g, i) => {
      const match = goalCondition(sql, g);
      return `, countIf(${match}) AS "c${i}", uniqExactIf("visitor", ${match}) AS "v${i}"`;
    });
    return `SELECT uniqExact("visitor") AS "visitors"${perGoal.join('')} FROM ${clickhouseHumanRows(sql, scope, ['visitor'])}`;
  },
};

export interface GoalCounts {
  conversions: number;
  visitors: number;
}

export interface GoalStats {
  /** Visitor-days with a canonical human pageview or event in the scope. */
  visitors: number;
  /** In the order of the goals asked for. */
  goals: GoalCounts[];
}

export const goalStatsOf = (rows: readonly ResultRow[], count: number): GoalStats => {
  const r = rows[0] ?? {};
  return { visitors: num(r.visitors), goals: Array.from({ length: count }, (_, i) => ({ conversions: num(r[`c${i}`]), visitors: num(r[`v${i}`]) })) };
};

export const goalStatsReport: Report<GoalArgs, GoalStats> = {
  stores: MAINTAINED_STORES,
  rows: async (db, scope, goals) => goalStatsOf(await db.run(goalStats, scope, goals), goals.length),
};

/** Bit i of a row's step mask: the row matches step i + 1. */
const stepMask = (sql: DuckDbSql | ClickHouseSql, steps: readonly GoalMatch[]) =>
  steps.map((step, i) => `(CASE WHEN ${goalCondition(sql, step)} THEN ${2 ** i} ELSE 0 END)`).join(' + ');

/** Rows: `level` (1..steps) and `visitors`, the visitor-days whose greedy walk stopped there. */
export const funnelLevels: Query<GoalArgs> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, steps) => `
    SELECT level, count(*) AS visitors FROM (
      SELECT list_reduce(list(mask ORDER BY ts, id), (reached, m) -> CASE WHEN (m >> reached) & 1 = 1 THEN reached + 1 ELSE reached END, 0) AS level
      FROM (SELECT visitor_key, ts, id, ${stepMask(sql, steps)} AS mask FROM events WHERE visitor_key IS NOT NULL AND ${duckdbHumanRows(sql, scope)})
      WHERE mask <> 0
      GROUP BY visitor_key
    ) WHERE level > 0 GROUP BY level`,
  clickhouse: (sql, scope, steps) => `
    SELECT "level", count() AS "visitors" FROM (
      SELECT arrayFold((reached, m) -> if(bitTest(m, reached), reached + 1, reached), arrayMap(x -> x.3, arraySort(groupArray(("ts", "id", "mask")))), toUInt64(0)) AS "level"
      FROM (SELECT "visitor", "ts", "id", ${stepMask(sql, steps)} AS "mask" FROM ${clickhouseHumanRows(sql, scope, ['visitor', 'id'])} AND "visitor" IS NOT NULL) AS m
      WHERE "mask" <> 0
      GROUP BY "visitor"
    ) AS l WHERE "level" > 0 GROUP BY "level"`,
};

/** Visitor-days reaching each step (at least that level), step 1 first. */
export function reachedSteps(rows: readonly ResultRow[], steps: number): number[] {
  const stopped = new Array<number>(steps + 1).fill(0);
  for (const r of rows) {
    const level = num(r.level);
    if (level >= 1 && level <= steps) stopped[level] = (stopped[level] as number) + num(r.visitors);
  }
  const reached = new Array<number>(steps).fill(0);
  let atLeast = 0;
  for (let level = steps; level >= 1; level--) {
    atLeast += stopped[level] as number;
    reached[level - 1] = atLeast;
  }
  return reached;
}

export const funnelReport: Report<GoalArgs, number[]> = {
  stores: MAINTAINED_STORES,
  rows: async (db, scope, steps) => reachedSteps(await db.run(funnelLevels, scope, steps), steps.length),
};

type MetadataArgs = [scope: ReportScope, event: string, key: string | null, limit: number];

/** DuckDB: each metadata object's entries, as a lateral table (no object: none). */
const duckdbEntries = `json_each(CASE WHEN json_valid(metadata) AND json_type(metadata) = 'OBJECT' THEN metadata ELSE '{}' END) AS kv`;

/** Rows `name` (a key, or a value of `key` as text), `value` (events) and `visitors`, by events descending then name. */
export const eventMetadata: Query<MetadataArgs> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, event, key, limit) => {
    const name = key === null ? 'kv.key' : `coalesce(json_extract_string(kv.value, '$'), 'null')`;
    const ofKey = key === null ? '' : ` AND kv.key = ${sql.value(key)}`;
    return `
      SELECT ${name} AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors
      FROM (SELECT metadata, visitor_key FROM events WHERE kind = 'event' AND NOT bot AND NOT replay AND event = ${sql.value(event)}
            AND metadata IS NOT NULL AND ${sql.scope([scope], scope.from, scope.to, scope.filters)}) AS e, ${duckdbEntries}
      WHERE true${ofKey}
      GROUP BY 1 ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`;
  },
  clickhouse: (sql, scope, event, key, limit) => {
    const rows = sql.canonicalOf(['event'], [scope], [[scope.from, scope.to]], ['bot', 'event', 'visitor', 'metadata', ...filterColumns(scope.filters)]);
    // A string's raw JSON is quoted: its text is the decoded string; any other value reads as written.
    const name = key === null ? 'kv.1' : `if(startsWith(kv.2, '"'), JSONExtractString(kv.2), kv.2)`;
    const ofKey = key === null ? '' : ` AND kv.1 = ${sql.value(key)}`;
    return `
      SELECT ${name} AS "name", count() AS "value", uniqExact("visitor") AS "visitors"
      FROM ${rows} AS e
      ARRAY JOIN JSONExtractKeysAndValuesRaw(coalesce("metadata", '')) AS kv
      WHERE ${sql.notBot} AND "event" = ${sql.value(event)}${filterSql(sql, scope.filters)}${ofKey}
      GROUP BY "name" ORDER BY "value" DESC, "name" ASC LIMIT ${sql.limit(limit)}`;
  },
};

export const eventMetadataReport: Report<MetadataArgs, BreakdownRow[]> = {
  stores: MAINTAINED_STORES,
  rows: async (db, ...args) => (await db.run(eventMetadata, ...args)).map((r) => ({ name: label(r.name), value: num(r.value), visitors: num(r.visitors) })),
};
