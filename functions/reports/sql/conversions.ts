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
 * - Funnels: per visitor-day, greedily: step 1 is its earliest hit of step
 *   1, step n its earliest hit of step n strictly later than step n - 1's.
 *   Steps must come in order (other rows may come between), one row is one
 *   step, and two hits in the same millisecond are not in order. The greedy
 *   walk reaches the longest prefix any ordered choice of rows could.
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

/**
 * Canonical human pageviews and custom events of the scope (DuckDB: a condition on `events`).
 * Every stored event has a name (the collector and the imports store none without), so the rows
 * are all but appends: a test of `kind` alone, where also testing the name cost twice the scan.
 */
const duckdbHumanRows = (sql: DuckDbSql, scope: ReportScope) => `NOT bot AND NOT replay AND kind <> 'append' AND ${sql.scope([scope], scope.from, scope.to, scope.filters)}`;

/**
 * ClickHouse: the same rows as a derived table and its condition, with `columns`; `matching`, a
 * condition on the stored row (a goal's or a step's match) that the read keeps alone, so copies are
 * decided among far fewer rows (a copy repeats its row's content: it matches as the row does).
 */
function clickhouseHumanRows(sql: ClickHouseSql, scope: ReportScope, columns: readonly string[], matching?: string): string {
  const rows = sql.canonicalOf(['pageview', 'event'], [scope], [[scope.from, scope.to]], ['kind', 'bot', 'path', 'event', ...columns, ...filterColumns(scope.filters)], matching);
  return `${rows} AS e WHERE ${sql.notBot}${filterSql(sql, scope.filters)}`;
}

/**
 * ClickHouse: a visitor hash as a 64-bit key, as DuckDB's writer keys it (`visitor_key`): distinct
 * counts and groups over it took half the time of the 32-character text over 2 million rows. Two of
 * a million visitor-days share a key with odds of about 1 in 10^7.
 */
const VISITOR_KEY = 'cityHash64("visitor")';

/** ClickHouse: the scope's visitor-days, from the stored rows as they are (a copy adds no visitor hash). */
function clickhouseVisitorDays(sql: ClickHouseSql, scope: ReportScope): string {
  const rows = sql.scan({ kinds: ['pageview', 'event'], sites: [scope], from: scope.from, to: scope.to }, ['visitor', 'bot', ...filterColumns(scope.filters)]);
  return `SELECT uniqExact(${VISITOR_KEY}) AS "visitors" FROM ${rows} AS e WHERE ${sql.notBot}${filterSql(sql, scope.filters)}`;
}

type GoalArgs = [scope: ReportScope, goals: readonly GoalMatch[]];

/** The rows matching any of the goals or steps: only they convert, or move a visitor-day along a funnel. */
const anyOf = (sql: DuckDbSql | ClickHouseSql, goals: readonly GoalMatch[]) => `(${goals.map((g) => goalCondition(sql, g)).join(' OR ')})`;

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
    if (goals.length === 0) return clickhouseVisitorDays(sql, scope);
    const perGoal = goals.map((g, i) => {
      const match = goalCondition(sql, g);
      return `countIf(${match}) AS "c${i}", uniqExactIf(${VISITOR_KEY}, ${match}) AS "v${i}"`;
    });
    const conversions = `SELECT ${perGoal.join(', ')} FROM ${clickhouseHumanRows(sql, scope, ['visitor'], anyOf(sql, goals))}`;
    return `SELECT * FROM (${clickhouseVisitorDays(sql, scope)}) AS d CROSS JOIN (${conversions}) AS c`;
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


/**
 * One row, `s1`..`s<n>`: the visitor-days reaching each step. DuckDB: per step, the earliest hit
 * after the step before's, one grouped join on the visitor key each (a per-visitor list folded by a
 * lambda measured five times slower over 2 million rows). ClickHouse: each visitor-day's hits
 * sorted by time and folded into (steps reached, time of the last).
 */
export const funnelSteps: Query<GoalArgs> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, steps) => {
    const hits = `SELECT visitor_key, ts, ${stepMask(sql, steps)} AS mask FROM events WHERE visitor_key IS NOT NULL AND ${anyOf(sql, steps)} AND ${duckdbHumanRows(sql, scope)}`;
    const reach = steps.map((_, i) =>
      i === 0
        ? `s1 AS (SELECT visitor_key, min(ts) AS at FROM hits WHERE mask & 1 <> 0 GROUP BY visitor_key)`
        : `s${i + 1} AS (SELECT h.visitor_key, min(h.ts) AS at FROM hits AS h JOIN s${i} AS p ON h.visitor_key = p.visitor_key WHERE h.mask & ${2 ** i} <> 0 AND h.ts > p.at GROUP BY h.visitor_key)`,
    );
    return `WITH hits AS MATERIALIZED (${hits}), ${reach.join(', ')}
      SELECT ${steps.map((_, i) => `(SELECT count(*) FROM s${i + 1}) AS s${i + 1}`).join(', ')}`;
  },
  clickhouse: (sql, scope, steps) => `
    SELECT ${steps.map((_, i) => `countIf("level" >= ${i + 1}) AS "s${i + 1}"`).join(', ')} FROM (
      SELECT arrayFold((reached, hit) -> if(bitTest(hit.2, reached.1) AND hit.1 > reached.2, (reached.1 + 1, hit.1), reached),
        arraySort(groupArray(("ts", "mask"))), (toUInt64(0), toInt64(-1))).1 AS "level"
      FROM (SELECT ${VISITOR_KEY} AS "visitor_key", "ts", ${stepMask(sql, steps)} AS "mask" FROM ${clickhouseHumanRows(sql, scope, ['visitor'], anyOf(sql, steps))} AND "visitor" IS NOT NULL) AS h
      GROUP BY "visitor_key"
    ) AS l`,
};

/** Visitor-days reaching each step, step 1 first. */
export const reachedSteps = (rows: readonly ResultRow[], steps: number): number[] => Array.from({ length: steps }, (_, i) => num(rows[0]?.[`s${i + 1}`]));

export const funnelReport: Report<GoalArgs, number[]> = {
  stores: MAINTAINED_STORES,
  rows: async (db, scope, steps) => reachedSteps(await db.run(funnelSteps, scope, steps), steps.length),
};

type MetadataArgs = [scope: ReportScope, event: string, key: string | null, limit: number];

/** DuckDB: metadata that parses as a JSON object (truncated metadata does not). */
const DUCKDB_OBJECT = `starts_with(metadata, '{') AND json_valid(metadata)`;

/** A metadata key as a JSON Pointer (RFC 6901: `~` and `/` escaped), so any key names only itself. */
export const jsonPointer = (key: string) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** Rows `name` (a key, or a value of `key` as text), `value` (events) and `visitors`, by events descending then name. */
export const eventMetadata: Query<MetadataArgs> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, event, key, limit) => {
    const rows = `SELECT metadata, visitor_key FROM events WHERE kind = 'event' AND NOT bot AND NOT replay AND event = ${sql.value(event)}
      AND metadata IS NOT NULL AND ${sql.scope([scope], scope.from, scope.to, scope.filters)} AND ${DUCKDB_OBJECT}`;
    // Keys: each object's entries; a key's values: the one entry, read by its pointer (a string as its text, any other value as written, null none).
    const labelled =
      key === null
        ? `SELECT kv.key AS name, visitor_key FROM (${rows}) AS e, json_each(metadata) AS kv`
        : `SELECT * FROM (SELECT json_extract_string(metadata, ${sql.value(jsonPointer(key))}) AS name, visitor_key FROM (${rows})) WHERE name IS NOT NULL`;
    return `
      SELECT name, count(*) AS value, count(DISTINCT visitor_key) AS visitors FROM (${labelled})
      GROUP BY 1 ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`;
  },
  clickhouse: (sql, scope, event, key, limit) => {
    const rows = sql.canonicalOf(['event'], [scope], [[scope.from, scope.to]], ['bot', 'event', 'visitor', 'metadata', ...filterColumns(scope.filters)], `"event" = ${sql.value(event)}`);
    const events = `${rows} AS e WHERE ${sql.notBot}${filterSql(sql, scope.filters)}`;
    // Keys: each object's keys; a key's values: the one entry, by its name (ClickHouse reads a string argument as a key, never a path),
    // a string as its text, any other value as written, null none (a missing key reads as '').
    const labelled =
      key === null
        ? `SELECT "name", "visitor" FROM (SELECT "metadata", "visitor" FROM ${events}) AS m ARRAY JOIN JSONExtractKeys(coalesce("metadata", '')) AS "name"`
        : `SELECT if(startsWith("raw", '"'), JSONExtractString("metadata", ${sql.value(key)}), "raw") AS "name", "visitor" FROM (
             SELECT "metadata", "visitor", JSONExtractRaw(coalesce("metadata", ''), ${sql.value(key)}) AS "raw" FROM ${events}) AS v
           WHERE "raw" NOT IN ('', 'null')`;
    return `
      SELECT "name", count() AS "value", uniqExact(${VISITOR_KEY}) AS "visitors" FROM (${labelled}) AS l
      GROUP BY "name" ORDER BY "value" DESC, "name" ASC LIMIT ${sql.limit(limit)}`;
  },
};

export const eventMetadataReport: Report<MetadataArgs, BreakdownRow[]> = {
  stores: MAINTAINED_STORES,
  rows: async (db, ...args) => (await db.run(eventMetadata, ...args)).map((r) => ({ name: label(r.name), value: num(r.value), visitors: num(r.visitors) })),
};
