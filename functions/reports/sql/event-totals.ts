/** The overview summary's event totals: canonical human custom events and their distinct visitor hashes (events without one add no visitor). */
import type { ReportScope } from '#ports/report-store.ts';
import type { Query, ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { CANONICAL_EVENTS } from './dialects/duckdb.ts';
import { filterColumns, filterSql, num } from './text.ts';

/** Timestream and ClickHouse: canonical human events with a name, copies decided as they are read. */
export const readTimeEventRows = (sql: ReadTimeSql, scope: ReportScope) => {
  const rows = sql.canonical('event', [scope], scope.from, scope.to, ['visitor', 'event', 'bot', ...filterColumns(scope.filters)]);
  return `${rows} AS e WHERE ${sql.notBot}${filterSql(sql, scope.filters)} AND coalesce("event", '') <> ''`;
};

/** Fragment: the scope's named human custom events (DuckDB: a condition on `events`; the others: a derived table and its condition). */
export const eventRows: Query<[scope: ReportScope]> = {
  duckdb: (sql, scope) => `${CANONICAL_EVENTS} AND ${sql.scope([scope], scope.from, scope.to, scope.filters)}`,
  timestream: (sql, scope) => readTimeEventRows(sql, scope),
  clickhouse: (sql, scope) => readTimeEventRows(sql, scope),
};

const readTimeTotals = (sql: ReadTimeSql, scope: ReportScope) =>
  `SELECT count(*) AS "count", count(DISTINCT "visitor") AS "visitors" FROM ${readTimeEventRows(sql, scope)}`;

export const eventTotals: Query<[scope: ReportScope]> = {
  duckdb: (sql, scope) => `SELECT count(*) AS count, count(DISTINCT visitor_key) AS visitors FROM events WHERE ${eventRows.duckdb(sql, scope)}`,
  timestream: (sql, scope) => readTimeTotals(sql, scope),
  clickhouse: (sql, scope) => readTimeTotals(sql, scope),
};

export const eventTotalsOf = (rows: readonly ResultRow[]) => ({ count: num(rows[0]?.count), visitors: num(rows[0]?.visitors) });
