/**
 * Several label breakdowns of one scope in one statement (the overview
 * summary's devices, browsers and OS): rows of (`list`, `name`, `value`,
 * `visitors`), `list` the index of the dimension; `techLists` ranks and cuts
 * each list as `breakdown` would.
 */
import type { BreakdownRow, LabelDim, ReportScope, SummaryLists } from '#ports/report-store.ts';
import { breakdown, breakdownRow, byValueThenName } from './breakdown.ts';
import type { Query, ResultRow } from './dialect.ts';
import { CANONICAL, VISITORS } from './dialects/duckdb.ts';
import { eventBreakdownRow } from './event-breakdown.ts';
import { eventTotalsOf } from './event-totals.ts';
import { keepsEmptyLabels, labelExpression, num } from './text.ts';

export const techLists: Query<[scope: ReportScope, dims: readonly LabelDim[], limit: number]> = {
  /** One scan: the lists are grouping sets of one aggregate; grouping() tells which set a row is of. */
  duckdb: (sql, scope, dims) => {
    const where = sql.scope([scope], scope.from, scope.to, scope.filters);
    const labels = dims.map((dim, i) => `${labelExpression(sql, dim)} AS l${i}`).join(', ');
    const columns = dims.map((_, i) => `l${i}`);
    const which = (pick: (i: number) => string) => `CASE ${columns.map((c, i) => `WHEN grouping(${c}) = 0 THEN ${pick(i)}`).join(' ')} END`;
    return `
      SELECT ${which(String)} AS list, ${which((i) => `l${i}`)} AS name, count(*) AS value, ${VISITORS} AS visitors
      FROM (SELECT *, ${labels} FROM events WHERE ${CANONICAL} AND ${where})
      GROUP BY GROUPING SETS (${columns.map((c) => `(${c})`).join(', ')})`;
  },
  /** Each list is the breakdown's statement, cut by it; one statement for them all. */
  timestream: (sql, scope, dims, limit) =>
    dims.map((dim, i) => `SELECT ${i} AS "list", "name", "value", "visitors" FROM (${breakdown.timestream(sql, scope, dim, limit)}) AS l${i}`).join('\nUNION ALL\n'),
  clickhouse: (sql, scope, dims, limit) =>
    dims.map((dim, i) => `SELECT ${i} AS "list", "name", "value", "visitors" FROM (${breakdown.clickhouse(sql, scope, dim, limit)}) AS l${i}`).join('\nUNION ALL\n'),
};

export function techListRows<D extends LabelDim>(dims: readonly D[], limit: number, rows: readonly ResultRow[]): Record<D, BreakdownRow[]> {
  const lists = dims.map(() => [] as BreakdownRow[]);
  for (const r of rows) {
    const i = num(r.list);
    const row = breakdownRow(r);
    if (row.name === '' && !keepsEmptyLabels(dims[i]!)) continue;
    lists[i]!.push(row);
  }
  return Object.fromEntries(dims.map((dim, i) => [dim, lists[i]!.sort(byValueThenName).slice(0, limit)])) as Record<D, BreakdownRow[]>;
}

/**
 * The summary's lists from one statement's rows (`list` 0..n-1 the tech lists, n the events
 * breakdown, n + 1 the event totals), each ranked and cut as its own query would answer it.
 */
export function summaryListsOf<D extends LabelDim>(dims: readonly D[], limit: number, rows: readonly ResultRow[]): SummaryLists<D> {
  const n = dims.length;
  const list = (i: number) => rows.filter((r) => num(r.list) === i);
  const [totals] = list(n + 1);
  return {
    lists: techListRows(dims, limit, rows.filter((r) => num(r.list) < n)),
    events: list(n).map(eventBreakdownRow).sort(byValueThenName).slice(0, limit),
    totals: eventTotalsOf([{ count: totals?.value, visitors: totals?.visitors }]),
  };
}
