/** The `events` breakdown: canonical human custom events by name, with visitors and the newest time (`last_seen`, Unix ms). */
import type { BreakdownRow, ReportScope } from '#ports/report-store.ts';
import type { DuckDbSql } from './dialects/duckdb.ts';
import { breakdownRow } from './breakdown.ts';
import type { Query, ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { eventRows, readTimeEventRows } from './event-totals.ts';
import { num } from './text.ts';

/** Timestream and ClickHouse: the same statement over their canonical events. */
const readTime = (sql: ReadTimeSql, scope: ReportScope, limit: number) => `
    SELECT "event" AS "name", count(*) AS "value", count(DISTINCT "visitor") AS "visitors", max("ts") AS "last_seen"
    FROM ${readTimeEventRows(sql, scope)}
    GROUP BY "event"
    ORDER BY "value" DESC, "name" ASC
    LIMIT ${sql.limit(limit)}`;

export const eventBreakdown: Query<[scope: ReportScope, limit: number]> = {
  duckdb: (sql, scope, limit) => `
    SELECT event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
    FROM events WHERE ${eventRows.duckdb(sql, scope)}
    GROUP BY event ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`,
  timestream: (sql, scope, limit) => readTime(sql, scope, limit),
  clickhouse: (sql, scope, limit) => readTime(sql, scope, limit),
};

export const eventBreakdownRow = (r: ResultRow): BreakdownRow => ({ ...breakdownRow(r), last_seen: num(r.last_seen) });

/**
 * DuckDB: the events breakdown and the event totals (event-totals.ts) from one scan, as the
 * summary reads both where no rollup answers (a filtered scope): the range's row (`whole` 1)
 * first, then the top `limit` names.
 */
export const duckdbEventsWithTotals = (sql: DuckDbSql, scope: ReportScope, limit: number) => `
    SELECT grouping(event) AS whole, event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
    FROM events WHERE ${eventRows.duckdb(sql, scope)}
    GROUP BY GROUPING SETS ((event), ()) ORDER BY whole DESC, value DESC, name ASC LIMIT ${sql.limit(limit + 1)}`;

/** duckdbEventsWithTotals' rows as the events breakdown and the totals. */
export function eventsWithTotalsOf(rows: readonly ResultRow[]): { events: BreakdownRow[]; totals: { count: number; visitors: number } } {
  const whole = rows.find((r) => num(r.whole) === 1);
  return {
    events: rows.filter((r) => num(r.whole) === 0).map(eventBreakdownRow),
    totals: { count: num(whole?.value), visitors: num(whole?.visitors) },
  };
}
