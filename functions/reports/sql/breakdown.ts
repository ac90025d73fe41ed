/**
 * A pageview breakdown (every dimension but `events`): canonical pageviews by
 * label, with visitors, value descending then name, empty labels only for
 * pages and referrers; `entry_pages` counts pageviews with the unique flag.
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import { BREAKDOWN_COLUMNS } from '#domain/reports/query.ts';
import type { BreakdownRow, ReportScope } from '#ports/report-store.ts';
import type { Query, ResultRow } from './dialect.ts';
import { CANONICAL, VISITORS } from './dialects/duckdb.ts';
import { NOT_BOT } from './dialects/timestream.ts';
import { filterColumns, filterSql, keepsEmptyLabels, label, labelExpression, num } from './text.ts';

export type PageviewDim = Exclude<BreakdownDim, 'events'>;

export const breakdown: Query<[scope: ReportScope, dim: PageviewDim, limit: number]> = {
  duckdb: (sql, scope, dim, limit) => {
    const where = sql.scope([scope], scope.from, scope.to, scope.filters);
    const entryOnly = dim === 'entry_pages' ? ' AND coalesce("unique", false)' : '';
    const keep = keepsEmptyLabels(dim) ? '' : ` AND coalesce(name, '') <> ''`;
    return `
      SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors
      FROM (SELECT *, ${labelExpression(sql, dim)} AS name FROM events WHERE ${CANONICAL} AND ${where}${entryOnly})
      WHERE true${keep}
      GROUP BY 1 ORDER BY value DESC, name ASC LIMIT ${sql.limit(limit)}`;
  },
  /** One row per canonical pageview, then grouped by label. */
  timestream: (sql, scope, dim, limit) => {
    const rows = sql.scan({ kinds: ['pageview'], sites: [scope], from: scope.from, to: scope.to }, [
      'id', 'visitor', 'unique', 'bot', BREAKDOWN_COLUMNS[dim], ...filterColumns(scope.filters),
    ]);
    const conditions = [...(dim === 'entry_pages' ? ['"uniq"'] : []), ...(keepsEmptyLabels(dim) ? [] : [`coalesce("label", '') <> ''`])];
    return `
    WITH pv AS (
      SELECT "id", arbitrary(${labelExpression(sql, dim)}) AS "label", max("visitor") AS "visitor", bool_or(coalesce("unique", false)) AS "uniq"
      FROM ${rows} AS e
      WHERE ${NOT_BOT}${filterSql(sql, scope.filters)}
      GROUP BY "id"
    )
    SELECT coalesce("label", '') AS "name", count(*) AS "value",
           count(DISTINCT "visitor") + count(CASE WHEN "visitor" IS NULL AND "uniq" THEN 1 END) AS "visitors"
    FROM pv${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}
    GROUP BY coalesce("label", '')
    ORDER BY "value" DESC, "name" ASC
    LIMIT ${sql.limit(limit)}`;
  },
};

export const breakdownRow = (r: ResultRow): BreakdownRow => ({ name: label(r.name), value: num(r.value), visitors: num(r.visitors) });

/** Value descending, then name (code-unit order, as the stores' ORDER BY on text). */
export const byValueThenName = (a: BreakdownRow, b: BreakdownRow) => b.value - a.value || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
