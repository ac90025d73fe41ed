/**
 * DuckDB only: unfiltered breakdowns and event totals from the daily rollups
 * (adapters/duckdb/rollups.ts) of the sealed whole UTC days inside the range,
 * plus the raw rows of its partial ends grouped by UTC day, summed per name.
 * Visitor hashes never repeat across UTC days, so per-day distinct counts
 * add up exactly; the result equals breakdown.ts's over the raw rows.
 *
 * A sealed day counts from its rollup only if the day's marker is in the
 * statement's snapshot; its rows are read otherwise. A build writes a day's
 * marker and labels in one transaction and a batch deletes both in one, so a
 * batch committed between a build and this read costs speed, never exactness.
 */
import { DAY_MS } from '#domain/event-flags/flag-index.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { ReportScope } from '#ports/report-store.ts';
import { CANONICAL, VISITORS, type DuckDbSql } from './dialects/duckdb.ts';
import { keepsEmptyLabels, labelExpression } from './text.ts';

/** Sealed UTC day numbers first..last, inside the scope's range. */
export interface SealedDays {
  first: number;
  last: number;
}

/** Written by the DuckDB store (adapters/duckdb/rollups.ts); the names carry the rules' version. */
export const ROLLUP_LABELS = 'rollup_v1_labels';
export const ROLLUP_DAYS = 'rollup_v1_days';

/** The sealed days whose rollup exists in this statement's snapshot. */
const builtDays = (sql: DuckDbSql, scope: ReportScope, days: SealedDays) =>
  `(SELECT day FROM ${ROLLUP_DAYS} WHERE ${sql.sites([scope])} AND day BETWEEN ${sql.bind(days.first)} AND ${sql.bind(days.last)})`;

/** The scope's rows no rollup answers: [from, first day), [after the last day, to), and the sealed days not built. */
function edges(sql: DuckDbSql, scope: ReportScope, days: SealedDays): string {
  const start = sql.bind(days.first * DAY_MS);
  const end = sql.bind((days.last + 1) * DAY_MS);
  return `${sql.sites([scope])} AND ts >= ${sql.bind(scope.from)} AND ts < ${sql.bind(scope.to)}
    AND (ts < ${start} OR ts >= ${end} OR ts // ${DAY_MS} NOT IN ${builtDays(sql, scope, days)})`;
}

function rolledRows(sql: DuckDbSql, scope: ReportScope, dim: string, days: SealedDays): string {
  return `SELECT name, value, visitors, last_seen FROM ${ROLLUP_LABELS}
    WHERE ${sql.sites([scope])} AND dim = ${sql.bind(dim)} AND day IN ${builtDays(sql, scope, days)}`;
}

/** How many of the sealed days have their rollup (the report store builds the rest first). */
export function builtDayCount(sql: DuckDbSql, scope: ReportScope, days: SealedDays): string {
  return `SELECT count(*) AS built FROM ${builtDays(sql, scope, days)}`;
}

const eventRowsOf = (where: string) => `kind = 'event' AND NOT bot AND NOT replay AND coalesce(event, '') <> '' AND ${where}`;

/** A breakdown's rows: names with value, visitors (and last_seen for events), ranked and cut as breakdown.ts ranks them. */
export function rolledBreakdown(sql: DuckDbSql, scope: ReportScope, dim: BreakdownDim, days: SealedDays, limit: number): string {
  const day = `ts // ${DAY_MS}`;
  const raw =
    dim === 'events'
      ? `SELECT event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
         FROM events WHERE ${eventRowsOf(edges(sql, scope, days))} GROUP BY event, ${day}`
      : `SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors, NULL::BIGINT AS last_seen
         FROM (SELECT *, ${labelExpression(sql, dim)} AS name FROM events
               WHERE ${CANONICAL} AND ${edges(sql, scope, days)}${dim === 'entry_pages' ? ' AND coalesce("unique", false)' : ''})
         GROUP BY coalesce(name, ''), ${day}`;
  const keep = dim === 'events' || keepsEmptyLabels(dim) ? '' : `WHERE name <> ''`;
  return `
    SELECT name, sum(value) AS value, sum(visitors) AS visitors, max(last_seen) AS last_seen
    FROM (${rolledRows(sql, scope, dim, days)} UNION ALL ${raw}) ${keep}
    GROUP BY name ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`;
}

/** The named events and their visitors over the range. */
export function rolledEventTotals(sql: DuckDbSql, scope: ReportScope, days: SealedDays): string {
  return `
    SELECT coalesce(sum(value), 0) AS count, coalesce(sum(visitors), 0) AS visitors FROM (
      ${rolledRows(sql, scope, 'event_totals', days)}
      UNION ALL
      SELECT '' AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, NULL AS last_seen
      FROM events WHERE ${eventRowsOf(edges(sql, scope, days))} GROUP BY ts // ${DAY_MS})`;
}
