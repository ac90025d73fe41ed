/**
 * The `exit_pages` breakdown: per visit, the path of its last canonical human
 * pageview. A visit is what `entry_pages` and the visitor counts take it to
 * be: one daily visitor hash's pageviews of a UTC day (hashes never repeat
 * across days), here those of the range that pass the filters. Its last
 * pageview is the one with the greatest `ts`, ties broken by the greater id.
 * `value` counts exits, `visitors` distinct visitor hashes; empty paths are
 * omitted, as in every list but pages and referrers. Pageviews without a
 * visitor hash (imports, older rows) cannot say where a visit ended: they add
 * nothing.
 *
 * Always read from the rows: the daily rollups keep labels per pageview and
 * hold no exits (a day's exits are its visitor hashes' last pageviews, which a
 * label of one row does not know). Timestream is frozen: not written for it.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import type { BreakdownRow, ReportScope } from '#ports/report-store.ts';
import { breakdownRow } from './breakdown.ts';
import { WITHOUT_DUCKDB, type Query } from './dialect.ts';
import { CANONICAL } from './dialects/duckdb.ts';
import { MAINTAINED_STORES, type Report } from './report.ts';
import { filterColumns, filterSql } from './text.ts';

export const exitPages: Query<[scope: ReportScope, limit: number]> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, limit) => `
    SELECT name, count(*) AS value, count(DISTINCT visitor_key) AS visitors
    FROM (
      SELECT coalesce(path, '') AS name, visitor_key,
             row_number() OVER (PARTITION BY visitor_key, ts // ${DAY_MS} ORDER BY ts DESC, id DESC) AS nth
      FROM events
      WHERE ${CANONICAL} AND visitor_key IS NOT NULL AND ${sql.scope([scope], scope.from, scope.to, scope.filters)}
    )
    WHERE nth = 1 AND name <> ''
    GROUP BY name ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`,
  clickhouse: (sql, scope, limit) => {
    const rows = sql.canonical('pageview', [scope], scope.from, scope.to, ['visitor', 'bot', 'path', ...filterColumns(scope.filters)]);
    return `
    SELECT "name", count() AS "value", count(DISTINCT "visitor") AS "visitors"
    FROM (
      SELECT argMax(coalesce("path", ''), tuple("ts", "id")) AS "name", "visitor"
      FROM ${rows} AS e
      WHERE ${sql.notBot} AND "visitor" IS NOT NULL${filterSql(sql, scope.filters)}
      GROUP BY "visitor", intDiv("ts", ${DAY_MS})
    ) AS v
    WHERE "name" <> ''
    GROUP BY "name"
    ORDER BY "value" DESC, "name" ASC
    LIMIT ${sql.limit(limit)}`;
  },
};

export const exitPagesReport: Report<[scope: ReportScope, limit: number], BreakdownRow[]> = {
  stores: MAINTAINED_STORES,
  rows: async (db, scope, limit) => (await db.run(exitPages, scope, limit)).map(breakdownRow),
};
