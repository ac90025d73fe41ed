/**
 * A pageview breakdown (every dimension but `events`): canonical pageviews by
 * label, with visitors, value descending then name, empty labels only for
 * pages and referrers; `entry_pages` counts pageviews with the unique flag.
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import { BREAKDOWN_COLUMNS } from '#domain/reports/query.ts';
import type { BreakdownRow, ReportScope } from '#ports/report-store.ts';
import type { Query, ResultRow } from './dialect.ts';
import type { ReadTimeSql } from './dialects/read-time.ts';
import { CANONICAL, VISITORS } from './dialects/duckdb.ts';
import { entryOnly, filterColumns, filterSql, keepsEmptyLabels, label, labelExpression, num } from './text.ts';

export type PageviewDim = Exclude<BreakdownDim, 'events'>;

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

export const breakdown: Query<[scope: ReportScope, dim: PageviewDim, limit: number]> = {
  duckdb: (sql, scope, dim, limit) => {
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

export const breakdownRow = (r: ResultRow): BreakdownRow => ({ name: label(r.name), value: num(r.value), visitors: num(r.visitors) });

/** Value descending, then name (code-unit order, as the stores' ORDER BY on text). */
export const byValueThenName = (a: BreakdownRow, b: BreakdownRow) => b.value - a.value || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
