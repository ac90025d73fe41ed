/**
 * The overview summary's event totals: canonical human custom events and their distinct visitor
 * hashes (events without one add no visitor). From the rows in every store, and from the daily
 * rollups of the filters' variant in DuckDB and ClickHouse.
 */
import type { ReportScope } from '#ports/report-store.ts';
import { variantOf } from '../plan.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import { rolledLists } from './dialects/clickhouse-rollups.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { CANONICAL_EVENT_COLUMNS, CANONICAL_EVENTS, type DuckDbSql } from './dialects/duckdb.ts';
import { DAY, rolledLabels, rowsOutsideRollups, stillBuilt } from './dialects/duckdb-rollups.ts';
import { FIRST_SLICE_STORES, readOf, type Report } from './report.ts';
import { listRows } from './rolled-merge.ts';
import type { SealedDays } from './sealed-days.ts';
import { filterColumns, filterSql, num } from './text.ts';

/** Timestream and ClickHouse: canonical human events with a name, copies decided as they are read. */
export const readTimeEventRows = (sql: ReadTimeSql, scope: ReportScope) => {
  const rows = sql.canonical('event', [scope], scope.from, scope.to, ['visitor', 'event', 'bot', ...filterColumns(scope.filters)]);
  return `${rows} AS e WHERE ${sql.notBot}${filterSql(sql, scope.filters)} AND coalesce("event", '') <> ''`;
};

/** Fragment: the scope's named human custom events (DuckDB: a condition on `events`; the others: a derived table and its condition). */
export const eventRows: Query<[scope: ReportScope], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope) => `${CANONICAL_EVENTS} AND ${sql.scope([scope], scope.from, scope.to, scope.filters)}`,
  timestream: (sql, scope) => readTimeEventRows(sql, scope),
  clickhouse: (sql, scope) => readTimeEventRows(sql, scope),
};

const readTimeTotals = (sql: ReadTimeSql, scope: ReportScope) =>
  `SELECT count(*) AS "count", count(DISTINCT "visitor") AS "visitors" FROM ${readTimeEventRows(sql, scope)}`;

export const eventTotals: Query<[scope: ReportScope], DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope) => `SELECT count(*) AS count, count(DISTINCT visitor_key) AS visitors FROM events WHERE ${eventRows.duckdb(sql, scope)}`,
  timestream: (sql, scope) => readTimeTotals(sql, scope),
  clickhouse: (sql, scope) => readTimeTotals(sql, scope),
};

export const eventTotalsOf = (rows: readonly ResultRow[]) => ({ count: num(rows[0]?.count), visitors: num(rows[0]?.visitors) });

/** DuckDB, from the rollups: the named events and their visitors over the range, with `still_built`. */
const duckdbRolled = (sql: DuckDbSql, days: SealedDays, scope: ReportScope) => `
    SELECT c.still_built, t.count, t.visitors FROM ${stillBuilt(sql, scope, days, variantOf(scope.filters))} AS c CROSS JOIN (
      SELECT coalesce(sum(value), 0) AS count, coalesce(sum(visitors), 0) AS visitors FROM (
        ${rolledLabels(sql, scope, 'event_totals', days)}
        UNION ALL
        SELECT '' AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, NULL AS last_seen
        FROM ${rowsOutsideRollups(sql, scope, days, ['ts', 'visitor_key', ...CANONICAL_EVENT_COLUMNS])} AS e WHERE ${CANONICAL_EVENTS} GROUP BY ${DAY})) AS t`;

export const eventTotalsReport: Report<[scope: ReportScope], { count: number; visitors: number }> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, scope) => eventTotalsOf(await db.run(eventTotals, scope)),
  rolled: {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : { need: 'labels', read: readOf, statement: duckdbRolled, answer: (rows) => eventTotalsOf(rows) },
    clickhouse: {
      need: 'labels',
      read: readOf,
      split: true,
      // The list's one row, name ''.
      statement: (sql, tables, days, part, scope) => rolledLists(sql, tables, scope, ['event_totals'], days, part),
      answer: (rows) => {
        const [total] = listRows(rows);
        return eventTotalsOf([{ count: total?.value, visitors: total?.visitors }]);
      },
    },
  },
};
