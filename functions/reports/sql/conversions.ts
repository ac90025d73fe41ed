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
 *
 * Each is written once per dialect as per-day rows (name, value, visitors)
 * over some ranges of a site's rows: visitor-days never span UTC days, so
 * the days add up. The rows answer by summing them over the range; with
 * rollups, the store keeps the rows of whole sealed days per subject (the
 * goal list, the funnel, the event's key: plan.ts subjectVariant) and reads
 * only the rest of the range from rows.
 */
import type { FilterClause } from '#domain/reports/filter.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { inRanges } from '#domain/rows/flags/clickhouse-sql.ts';
import type { GoalMatch } from '#ports/goals.ts';
import type { BreakdownRow, ReportScope, SiteRef } from '#ports/report-store.ts';
import { rollupVariant, subjectVariant, type SubjectRows } from '../plan.ts';
import { WITHOUT_DUCKDB, type Query, type ResultRow } from './dialect.ts';
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import { rolledSubject as clickhouseRolledSubject } from './dialects/clickhouse-rollups.ts';
import type { DuckDbSql } from './dialects/duckdb.ts';
import { rolledSubject as duckdbRolledSubject } from './dialects/duckdb-rollups.ts';
import { MAINTAINED_STORES, readOf, type Report } from './report.ts';
import { filterColumns, filterSql, goalCondition, label, num, sumsByName } from './text.ts';

type Ranges = readonly (readonly [number, number])[];
/** Whose rows per-day rows count: a site's, under the scope's filters (a rollup build's: none). */
type RowsScope = SiteRef & { filters?: readonly FilterClause[] };

/** A subject's per-day rows (plan.ts SubjectRows) in each dialect, over the report's arguments after its scope. */
interface PerDay<A extends unknown[]> {
  duckdb: (sql: DuckDbSql, scope: RowsScope, ranges: Ranges, ...args: A) => string;
  clickhouse: (sql: ClickHouseSql, scope: RowsScope, ranges: Ranges, ...args: A) => string;
}

/** How a subject's report is made: its kind, per-day rows, what its rollups are of, its top list's length (when it is one), and its answer from the summed rows. */
interface SubjectReport<A extends unknown[], R> {
  kind: string;
  perDay: PerDay<A>;
  counted(...args: A): unknown;
  top?(...args: A): number;
  answer(sums: ReadonlyMap<string, ResultRow>, ...args: A): R;
}

/**
 * A report counted as per-day rows: from the rows, their sums over the whole range; from the
 * rollups (DuckDB and ClickHouse; no filter, or one `dim:value` clause), the sums of the subject's
 * rollups of whole sealed days and of the rest's rows.
 */
function subjectReport<A extends unknown[], R>(made: SubjectReport<A, R>): Report<[ReportScope, ...A], R> {
  const answer = (rows: readonly ResultRow[], args: A) => made.answer(new Map(rows.filter((r) => r.name !== null && r.name !== undefined).map((r) => [String(r.name), r])), ...args);
  // A subject's rollups count the site's rows, or those of the scope's one `dim:value` clause (plan.ts rollupVariant).
  const variant = (scope: ReportScope, args: A) => subjectVariant(made.kind, [made.counted(...args), rollupVariant(scope.filters)]);
  const subject = <S>(rows: (sql: S, scope: RowsScope, ranges: Ranges, ...args: A) => string, scope: ReportScope, args: A): SubjectRows<S> => ({
    variant: variant(scope, args),
    rows: (sql, site, ranges) => rows(sql, { site: site.site, registration: site.registration, filters: scope.filters }, ranges, ...args),
  });
  const read = (scope: ReportScope, ...args: A) => ({ ...readOf(scope), variant: variant(scope, args) });
  const top = (sql: DuckDbSql | ClickHouseSql, args: A) => (made.top ? sql.limit(made.top(...args)) : undefined);
  const whole: Query<[ReportScope, ...A]> = {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, ...args) => sumsByName(made.perDay.duckdb(sql, scope, [[scope.from, scope.to]], ...(args as A)), top(sql, args as A)),
    clickhouse: (sql, scope, ...args) => sumsByName(made.perDay.clickhouse(sql, scope, [[scope.from, scope.to]], ...(args as A)), top(sql, args as A)),
  };
  return {
    stores: MAINTAINED_STORES,
    rows: async (db, scope, ...args) => answer(await db.run(whole, scope, ...args), args),
    rolled: {
      duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : {
        need: 'labels',
        read,
        subject: (scope, ...args) => subject(made.perDay.duckdb, scope, args),
        statement: (sql, days, scope, ...args) => duckdbRolledSubject(sql, scope, days, subject(made.perDay.duckdb, scope, args), top(sql, args)),
        answer: (rows, _scope, ...args) => answer(rows, args),
      },
      clickhouse: {
        need: 'labels',
        read,
        split: false,
        subject: (scope, ...args) => subject(made.perDay.clickhouse, scope, args),
        statement: (sql, tables, days, _part, scope, ...args) => clickhouseRolledSubject(sql, tables, scope, days, subject(made.perDay.clickhouse, scope, args), top(sql, args)),
        answer: (rows, _scope, ...args) => answer(rows, args),
      },
    },
  };
}

/** A row's UTC day. */
const DAY = `ts // ${DAY_MS}`;
const CH_DAY = `toInt32(intDiv("ts", ${DAY_MS}))`;

/**
 * DuckDB: the site's canonical human pageviews and custom events in the ranges that pass the
 * scope's filters, with `columns` (and `also`, a condition on the stored row). Every stored event
 * has a name (the collector and the imports store none without), so the rows are all but appends:
 * a test of `kind` alone, where also testing the name cost twice the scan.
 */
function duckdbHumanRows(sql: DuckDbSql, scope: RowsScope, ranges: Ranges, columns: readonly string[], also = 'true'): string {
  return sql.rowsInRanges(
    columns,
    ranges,
    (a, b) => `NOT bot AND NOT replay AND kind <> 'append' AND ${sql.sites([scope])} AND ts >= ${a} AND ts < ${b} AND ${also}${filterSql(sql, scope.filters ?? [])}`,
  );
}

/**
 * ClickHouse: the same rows as a derived table and its condition, with `columns`; `matching`, a
 * condition on the stored row (a goal's or a step's match) that the read keeps alone, so copies are
 * decided among far fewer rows (a copy repeats its row's content: it matches as the row does).
 */
function clickhouseHumanRows(sql: ClickHouseSql, scope: RowsScope, ranges: Ranges, columns: readonly string[], matching?: string): string {
  const filters = scope.filters ?? [];
  const rows = sql.canonicalOf(['pageview', 'event'], [scope], ranges, ['kind', 'bot', 'path', 'event', ...columns, ...filterColumns(filters)], matching);
  return `${rows} AS e WHERE ${sql.notBot}${filterSql(sql, filters)}`;
}

/**
 * ClickHouse: a visitor hash as a 64-bit key, as DuckDB's writer keys it (`visitor_key`): distinct
 * counts and groups over it took half the time of the 32-character text over 2 million rows. Two of
 * a million visitor-days share a key with odds of about 1 in 10^7.
 */
const VISITOR_KEY = 'cityHash64("visitor")';

/** ClickHouse: the scope's visitor-days per day, from the stored rows as they are (a copy adds no visitor hash), as the row `visitors`. */
function clickhouseVisitorDays(sql: ClickHouseSql, scope: RowsScope, ranges: Ranges): string {
  const filters = scope.filters ?? [];
  const [from, to] = [Math.min(...ranges.map((r) => r[0])), Math.max(...ranges.map((r) => r[1]))];
  const rows = sql.scan({ kinds: ['pageview', 'event'], sites: [scope], from, to, also: `(${inRanges('"ts"', ranges)})` }, ['visitor', 'bot', ...filterColumns(filters)]);
  return `SELECT ${CH_DAY} AS "day", 'visitors' AS "name", toUInt64(0) AS "value", uniqExact(${VISITOR_KEY}) AS "visitors" FROM ${rows} AS e WHERE ${sql.notBot}${filterSql(sql, filters)} GROUP BY "day"`;
}

/** The rows matching any of the goals or steps: only they convert, or move a visitor-day along a funnel. */
const anyOf = (sql: DuckDbSql | ClickHouseSql, goals: readonly GoalMatch[]) => `(${goals.map((g) => goalCondition(sql, g)).join(' OR ')})`;

/** The name of goal i's per-day row; the day's visitor-days are the row `visitors`. */
const goalName = (i: number) => `g${i}`;

/**
 * Per day the row `visitors` (value 0, visitors the day's visitor-days) and per goal i the row
 * `g<i>` (value its conversions, visitors its converted visitor-days).
 */
const goalRows: PerDay<[goals: readonly GoalMatch[]]> = {
  duckdb: (sql, scope, ranges, goals) => {
    const rows = duckdbHumanRows(sql, scope, ranges, ['ts', 'visitor_key', 'kind', 'path', 'event']);
    const perGoal = goals.map((g, i) => {
      const match = goalCondition(sql, g);
      return `, count(*) FILTER (WHERE ${match}) AS c${i}, count(DISTINCT visitor_key) FILTER (WHERE ${match}) AS v${i}`;
    });
    const list = (first: string, each: (i: number) => string) => `[${[first, ...goals.map((_, i) => each(i))].join(', ')}]`;
    return `SELECT day, unnest(${list("'visitors'", (i) => `'${goalName(i)}'`)}) AS name, unnest(${list('0', (i) => `c${i}`)}) AS value,
        unnest(${list('visitors', (i) => `v${i}`)}) AS visitors
      FROM (SELECT ${DAY} AS day, count(DISTINCT visitor_key) AS visitors${perGoal.join('')} FROM ${rows} AS e GROUP BY 1)`;
  },
  clickhouse: (sql, scope, ranges, goals) => {
    const days = clickhouseVisitorDays(sql, scope, ranges);
    if (goals.length === 0) return days;
    const perGoal = goals.map((g, i) => {
      const match = goalCondition(sql, g);
      return `tuple('${goalName(i)}', countIf(${match}), uniqExactIf(${VISITOR_KEY}, ${match}))`;
    });
    const conversions = `SELECT ${CH_DAY} AS "day", [${perGoal.join(', ')}] AS "goals" FROM ${clickhouseHumanRows(sql, scope, ranges, ['visitor'], anyOf(sql, goals))} GROUP BY "day"`;
    return `${days} UNION ALL SELECT "day", g.1 AS "name", g.2 AS "value", g.3 AS "visitors" FROM (${conversions}) AS c ARRAY JOIN "goals" AS g`;
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

export const goalStatsReport: Report<[scope: ReportScope, goals: readonly GoalMatch[]], GoalStats> = subjectReport({
  kind: 'goals',
  perDay: goalRows,
  counted: (goals) => goals.map((g) => [g.type, g.match]),
  answer: (sums, goals) => ({
    visitors: num(sums.get('visitors')?.visitors),
    goals: goals.map((_, i) => ({ conversions: num(sums.get(goalName(i))?.value), visitors: num(sums.get(goalName(i))?.visitors) })),
  }),
});

/** Bit i of a row's step mask: the row matches step i + 1. */
const stepMask = (sql: DuckDbSql | ClickHouseSql, steps: readonly GoalMatch[]) =>
  steps.map((step, i) => `(CASE WHEN ${goalCondition(sql, step)} THEN ${2 ** i} ELSE 0 END)`).join(' + ');

/** The name of step i's per-day row (value and visitors: the visitor-days that reached it). */
const stepName = (i: number) => `s${i + 1}`;

/**
 * Per day and step, the visitor-days reaching it. DuckDB: per step, the earliest hit after the step
 * before's, one grouped join on the visitor key each (a per-visitor list folded by a lambda measured
 * five times slower over 2 million rows). ClickHouse: each visitor-day's hits sorted by time and
 * folded into (steps reached, time of the last).
 */
const funnelRows: PerDay<[steps: readonly GoalMatch[]]> = {
  duckdb: (sql, scope, ranges, steps) => {
    const rows = duckdbHumanRows(sql, scope, ranges, ['ts', 'visitor_key', 'kind', 'path', 'event'], `visitor_key IS NOT NULL AND ${anyOf(sql, steps)}`);
    const reach = steps.map((_, i) =>
      i === 0
        ? `s1 AS (SELECT visitor_key, min(ts) AS reached FROM hits WHERE mask & 1 <> 0 GROUP BY visitor_key)`
        : `s${i + 1} AS (SELECT h.visitor_key, min(h.ts) AS reached FROM hits AS h JOIN s${i} AS p ON h.visitor_key = p.visitor_key WHERE h.mask & ${2 ** i} <> 0 AND h.ts > p.reached GROUP BY h.visitor_key)`,
    );
    const counts = steps.map((_, i) => `SELECT reached // ${DAY_MS} AS day, '${stepName(i)}' AS name, count(*) AS value, count(*) AS visitors FROM s${i + 1} GROUP BY 1`);
    return `WITH hits AS MATERIALIZED (SELECT visitor_key, ts, ${stepMask(sql, steps)} AS mask FROM ${rows} AS e), ${reach.join(', ')}
      ${counts.join(' UNION ALL ')}`;
  },
  clickhouse: (sql, scope, ranges, steps) => `
    SELECT "day", r.1 AS "name", r.2 AS "value", r.2 AS "visitors" FROM (
      SELECT "day", [${steps.map((_, i) => `tuple('${stepName(i)}', countIf("level" >= ${i + 1}))`).join(', ')}] AS "steps" FROM (
        SELECT any(${CH_DAY}) AS "day", arrayFold((reached, hit) -> if(bitTest(hit.2, reached.1) AND hit.1 > reached.2, (reached.1 + 1, hit.1), reached),
          arraySort(groupArray(("ts", "mask"))), (toUInt64(0), toInt64(-1))).1 AS "level"
        FROM (SELECT ${VISITOR_KEY} AS "visitor_key", "ts", ${stepMask(sql, steps)} AS "mask" FROM ${clickhouseHumanRows(sql, scope, ranges, ['visitor'], anyOf(sql, steps))} AND "visitor" IS NOT NULL) AS h
        GROUP BY "visitor_key"
      ) AS l GROUP BY "day"
    ) AS d ARRAY JOIN "steps" AS r`,
};

/** Visitor-days reaching each step, step 1 first. */
export const funnelReport: Report<[scope: ReportScope, steps: readonly GoalMatch[]], number[]> = subjectReport({
  kind: 'funnel',
  perDay: funnelRows,
  counted: (steps) => steps.map((s) => [s.type, s.match]),
  answer: (sums, steps) => steps.map((_, i) => num(sums.get(stepName(i))?.value)),
});

type MetadataArgs = [event: string, key: string | null, limit: number];

/** DuckDB: metadata that parses as a JSON object (truncated metadata does not). */
const DUCKDB_OBJECT = `starts_with(metadata, '{') AND json_valid(metadata)`;

/** A metadata key as a JSON Pointer (RFC 6901: `~` and `/` escaped), so any key names only itself. */
export const jsonPointer = (key: string) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** Per day, rows named by a key (or a value of `key` as text), `value` (events) and `visitors`. */
const metadataRows: PerDay<MetadataArgs> = {
  duckdb: (sql, scope, ranges, event, key) => {
    const rows = sql.rowsInRanges(
      ['ts', 'metadata', 'visitor_key'],
      ranges,
      (a, b) => `kind = 'event' AND NOT bot AND NOT replay AND event = ${sql.value(event)} AND metadata IS NOT NULL AND ${sql.sites([scope])}
        AND ts >= ${a} AND ts < ${b} AND ${DUCKDB_OBJECT}${filterSql(sql, scope.filters ?? [])}`,
    );
    // Keys: each object's entries; a key's values: the one entry, read by its pointer (a string as its text, any other value as written, null none).
    const labelled =
      key === null
        ? `SELECT ts, kv.key AS name, visitor_key FROM ${rows} AS e, json_each(metadata) AS kv`
        : `SELECT * FROM (SELECT ts, json_extract_string(metadata, ${sql.value(jsonPointer(key))}) AS name, visitor_key FROM ${rows} AS e) WHERE name IS NOT NULL`;
    return `SELECT ${DAY} AS day, name, count(*) AS value, count(DISTINCT visitor_key) AS visitors FROM (${labelled}) GROUP BY 1, 2`;
  },
  clickhouse: (sql, scope, ranges, event, key) => {
    const filters = scope.filters ?? [];
    const rows = sql.canonicalOf(['event'], [scope], ranges, ['bot', 'event', 'visitor', 'metadata', ...filterColumns(filters)], `"event" = ${sql.value(event)}`);
    const events = `${rows} AS e WHERE ${sql.notBot}${filterSql(sql, filters)}`;
    // Keys: each object's keys; a key's values: the one entry, by its name (ClickHouse reads a string argument as a key, never a path),
    // a string as its text, any other value as written, null none (a missing key reads as '').
    const labelled =
      key === null
        ? `SELECT "ts", "name", "visitor" FROM (SELECT "ts", "metadata", "visitor" FROM ${events}) AS m ARRAY JOIN JSONExtractKeys(coalesce("metadata", '')) AS "name"`
        : `SELECT "ts", if(startsWith("raw", '"'), JSONExtractString("metadata", ${sql.value(key)}), "raw") AS "name", "visitor" FROM (
             SELECT "ts", "metadata", "visitor", JSONExtractRaw(coalesce("metadata", ''), ${sql.value(key)}) AS "raw" FROM ${events}) AS v
           WHERE "raw" NOT IN ('', 'null')`;
    return `SELECT ${CH_DAY} AS "day", "name", count() AS "value", uniqExact(${VISITOR_KEY}) AS "visitors" FROM (${labelled}) AS l GROUP BY "day", "name"`;
  },
};

/** One event's metadata keys, or one key's values: rows `name`, `value` (events) and `visitors`, by events descending then name. */
export const eventMetadataReport: Report<[scope: ReportScope, ...MetadataArgs], BreakdownRow[]> = subjectReport({
  kind: 'metadata',
  perDay: metadataRows,
  counted: (event, key) => [event, key],
  top: (_event, _key, limit) => limit,
  answer: (sums) => [...sums.values()].map((r) => ({ name: label(r.name), value: num(r.value), visitors: num(r.visitors) })),
});
