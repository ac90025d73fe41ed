/** The overview summary's event totals: canonical human custom events and their distinct visitor hashes (events without one add no visitor). */
import type { ReportScope } from '#ports/report-store.ts';
import type { Query, ResultRow } from './dialect.ts';
import { NOT_BOT } from './dialects/timestream.ts';
import { NOT_BOT as CLICKHOUSE_NOT_BOT } from './dialects/clickhouse.ts';
import { filterColumns, filterSql, num } from './text.ts';

/** Fragment: the scope's named human custom events (DuckDB: a condition on `events`; Timestream: a derived table and its condition). */
export const eventRows: Query<[scope: ReportScope]> = {
  duckdb: (sql, scope) => `kind = 'event' AND NOT bot AND NOT replay AND ${sql.scope([scope], scope.from, scope.to, scope.filters)} AND coalesce(event, '') <> ''`,
  timestream: (sql, scope) => {
    const rows = sql.canonical('event', [scope], scope.from, scope.to, ['visitor', 'event', 'bot', ...filterColumns(scope.filters)]);
    return `${rows} AS e WHERE ${NOT_BOT}${filterSql(sql, scope.filters)} AND coalesce("event", '') <> ''`;
  },
  clickhouse: (sql, scope) => {
    const rows = sql.canonical('event', [scope], scope.from, scope.to, ['visitor', 'event', 'bot', ...filterColumns(scope.filters)]);
    return `${rows} AS e WHERE ${CLICKHOUSE_NOT_BOT}${filterSql(sql, scope.filters)} AND coalesce("event", '') <> ''`;
  },
};

export const eventTotals: Query<[scope: ReportScope]> = {
  duckdb: (sql, scope) => `SELECT count(*) AS count, count(DISTINCT visitor_key) AS visitors FROM events WHERE ${eventRows.duckdb(sql, scope)}`,
  timestream: (sql, scope) => `
    SELECT count(*) AS "count", count(DISTINCT "visitor") AS "visitors"
    FROM ${eventRows.timestream(sql, scope)}`,
  clickhouse: (sql, scope) => `SELECT count() AS "count", count(DISTINCT "visitor") AS "visitors" FROM ${eventRows.clickhouse(sql, scope)}`,
};

export const eventTotalsOf = (rows: readonly ResultRow[]) => ({ count: num(rows[0]?.count), visitors: num(rows[0]?.visitors) });
