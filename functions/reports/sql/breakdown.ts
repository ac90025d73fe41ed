/**
 * A breakdown: for a pageview dimension, canonical pageviews by label, with
 * visitors, value descending then name, empty labels only for pages and
 * referrers (`entry_pages` counts pageviews with the unique flag); for
 * `events`, canonical human custom events by name, with visitors and the
 * newest time (`last_seen`, Unix ms). From the rows in every store, and from
 * the daily rollups of the filters' variant in DuckDB and ClickHouse.
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import { BREAKDOWN_COLUMNS } from '#domain/reports/query.ts';
import type { BreakdownRow, ReportScope } from '#ports/report-store.ts';
import { variantOf } from '../plan.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { rolledLists } from './dialects/clickhouse-rollups.ts';
import { CANONICAL, CANONICAL_COLUMNS, CANONICAL_EVENT_COLUMNS, CANONICAL_EVENTS, VISITORS, type DuckDbSql } from './dialects/duckdb.ts';
import { DAY, rolledLabels, rowsOutsideRollups, stillBuilt } from './dialects/duckdb-rollups.ts';
import { eventRows, readTimeEventRows } from './event-totals.ts';
import { FIRST_SLICE_STORES, readOf, type Report } from './report.ts';
import type { SealedDays } from './sealed-days.ts';
import { entryOnly, filterColumns, filterSql, keepsEmptyLabels, label, labelExpression, num, type PageviewDim, type RolledDim } from './text.ts';

/** Timestream and ClickHouse: the same statement over their canonical pageviews. */
function readTime(sql: ReadTimeSql, scope: ReportScope, dim: PageviewDim, limit: number): string {
  const rows = sql.canonical('pageview', [scope], scope.from, scope.to, ['visitor', 'unique', 'bot', BREAKDOWN_COLUMNS[dim], ...filterColumns(scope.filters)]);
  const keep = keepsEmptyLabels(dim) ? '' : ` WHERE coalesce("label", '') <> ''`;
  return `
    SELECT coalesce("label", '') AS "name", count(*) AS "value", ${sql.visitors} AS "visitors"
    FROM (
      SELECT ${labelExpression(sql, dim)} AS "label", "visitor", "unique"
      FROM ${rows} AS e
      WHERE ${sql.notBot}${filterSql(sql, scope.filters)}${entryOnly(dim)}
    ) AS pv${keep}
    GROUP BY coalesce("label", '')
    ORDER BY "value" DESC, "name" ASC
    LIMIT ${sql.limit(limit)}`;
}

/** A pageview dimension's breakdown over the rows. */
export const breakdown: Query<[scope: ReportScope, dim: PageviewDim, limit: number], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, dim, limit) => {
    const where = sql.scope([scope], scope.from, scope.to, scope.filters);
    const keep = keepsEmptyLabels(dim) ? '' : ` AND coalesce(name, '') <> ''`;
    return `
      SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors
      FROM (SELECT *, ${labelExpression(sql, dim)} AS name FROM events WHERE ${CANONICAL} AND ${where}${entryOnly(dim)})
      WHERE true${keep}
      GROUP BY 1 ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`;
  },
  timestream: (sql, scope, dim, limit) => readTime(sql, scope, dim, limit),
  clickhouse: (sql, scope, dim, limit) => readTime(sql, scope, dim, limit),
};

/** Timestream and ClickHouse: the same statement over their canonical events. */
const readTimeEvents = (sql: ReadTimeSql, scope: ReportScope, limit: number) => `
    SELECT "event" AS "name", count(*) AS "value", count(DISTINCT "visitor") AS "visitors", max("ts") AS "last_seen"
    FROM ${readTimeEventRows(sql, scope)}
    GROUP BY "event"
    ORDER BY "value" DESC, "name" ASC
    LIMIT ${sql.limit(limit)}`;

/** The `events` breakdown over the rows. */
export const eventBreakdown: Query<[scope: ReportScope, limit: number], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, limit) => `
    SELECT event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
    FROM events WHERE ${eventRows.duckdb(sql, scope)}
    GROUP BY event ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`,
  timestream: (sql, scope, limit) => readTimeEvents(sql, scope, limit),
  clickhouse: (sql, scope, limit) => readTimeEvents(sql, scope, limit),
};

export const breakdownRow = (r: ResultRow): BreakdownRow => ({ name: label(r.name), value: num(r.value), visitors: num(r.visitors) });
export const eventBreakdownRow = (r: ResultRow): BreakdownRow => ({ ...breakdownRow(r), last_seen: num(r.last_seen) });
const rowOf = (dim: BreakdownDim) => (dim === 'events' ? eventBreakdownRow : breakdownRow);

/** Value descending, then name (code-unit order, as the stores' ORDER BY on text). */
export const byValueThenName = (a: BreakdownRow, b: BreakdownRow) => b.value - a.value || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * DuckDB, from the rollups: names with value, visitors (and last_seen for events), ranked and cut
 * as the rows' statement ranks them; every row carries `still_built`, and one row with a null
 * name stands for an empty answer.
 */
function duckdbRolled(sql: DuckDbSql, days: SealedDays, scope: ReportScope, dim: RolledDim, limit: number): string {
  const rows = rowsOutsideRollups(sql, scope, days, ['ts', 'visitor_key', ...(dim === 'events' ? CANONICAL_EVENT_COLUMNS : [...CANONICAL_COLUMNS, 'unique', BREAKDOWN_COLUMNS[dim]])]);
  const raw =
    dim === 'events'
      ? `SELECT event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
         FROM ${rows} AS e WHERE ${CANONICAL_EVENTS} GROUP BY event, ${DAY}`
      : `SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors, NULL::BIGINT AS last_seen
         FROM (SELECT *, ${labelExpression(sql, dim)} AS name FROM ${rows} AS e
               WHERE ${CANONICAL}${entryOnly(dim)})
         GROUP BY coalesce(name, ''), ${DAY}`;
  const keep = dim === 'events' || keepsEmptyLabels(dim) ? '' : `WHERE name <> ''`;
  return `
    WITH answer AS (
      SELECT name, sum(value) AS value, sum(visitors) AS visitors, max(last_seen) AS last_seen
      FROM (${rolledLabels(sql, scope, dim, days)} UNION ALL ${raw}) ${keep}
      GROUP BY name ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}
    )
    SELECT c.still_built, a.name, a.value, a.visitors, a.last_seen FROM ${stillBuilt(sql, scope, days, variantOf(scope.filters))} AS c LEFT JOIN answer AS a ON true
    ORDER BY a.value DESC, a.name ASC`;
}

/** Every breakdown but `exit_pages`, which exit-pages.ts answers. */
type Args = [scope: ReportScope, dim: RolledDim, limit: number];

export const breakdownReport: Report<Args, BreakdownRow[]> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, scope, dim, limit) =>
    dim === 'events' ? (await db.run(eventBreakdown, scope, limit)).map(eventBreakdownRow) : (await db.run(breakdown, scope, dim, limit)).map(breakdownRow),
  rolled: {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : {
      need: 'labels',
      read: readOf,
      statement: duckdbRolled,
      answer: (rows, _scope, dim) => rows.filter((r) => r.name !== null && r.name !== undefined).map(rowOf(dim)),
    },
    clickhouse: {
      need: 'labels',
      read: readOf,
      // Ranked and cut: one statement, as partial sums could not be cut.
      split: false,
      statement: (sql, tables, days, _part, scope, dim, limit) => {
        const keep = dim === 'events' || keepsEmptyLabels(dim) ? '' : `WHERE "name" <> ''`;
        const lists = rolledLists(sql, tables, scope, [dim], days, 'whole');
        return lists && `SELECT * FROM (${lists}) AS l ${keep} ORDER BY "value" DESC, "name" ASC LIMIT ${sql.limit(limit)}`;
      },
      answer: (rows, _scope, dim) => rows.map(rowOf(dim)).sort(byValueThenName),
    },
  },
};
