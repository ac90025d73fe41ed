/** The `events` breakdown: canonical human custom events by name, with visitors and the newest time (`last_seen`, Unix ms). */
import type { BreakdownRow, ReportScope } from '#ports/report-store.ts';
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
