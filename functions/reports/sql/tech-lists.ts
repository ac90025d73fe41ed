/**
 * Several label breakdowns of one scope in one statement (the overview
 * summary's devices, browsers and OS): rows of (`list`, `name`, `value`,
 * `visitors`), `list` the index of the dimension; `techListRows` ranks and
 * cuts each list as the breakdown would. From the rows in every store, and
 * from the daily rollups of the filters' variant in DuckDB and ClickHouse.
 */
import { BREAKDOWN_COLUMNS } from '#domain/reports/query.ts';
import type { BreakdownRow, LabelDim, ReportScope } from '#ports/report-store.ts';
import { variantOf } from '../plan.ts';
import { breakdown, breakdownRow, byValueThenName } from './breakdown.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import { rolledLists } from './dialects/clickhouse-rollups.ts';
import { CANONICAL, CANONICAL_EVENT_COLUMNS, CANONICAL_EVENTS, VISITORS, type DuckDbSql } from './dialects/duckdb.ts';
import { DAY, dayNamed, ofVariant, ROLLUP_LABELS, rowsOutsideRollups, stillBuilt } from './dialects/duckdb-rollups.ts';
import { FIRST_SLICE_STORES, readOf, type Report } from './report.ts';
import { listRows } from './rolled-merge.ts';
import type { SealedDays } from './sealed-days.ts';
import { keepsEmptyLabels, labelExpression, num } from './text.ts';

export const techLists: Query<[scope: ReportScope, dims: readonly LabelDim[], limit: number], DialectName> = {
  /** One scan: the lists are grouping sets of one aggregate; grouping() tells which set a row is of. */
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, dims) => {
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

/** A DuckDB rolled read's rows of lists: the one with a null list stands for an empty answer. */
export const listed = (rows: readonly ResultRow[]) => rows.filter((r) => r.list !== null && r.list !== undefined);

/**
 * DuckDB, from the rollups: several label breakdowns of one scope in one statement, rows of
 * (`list`, `name`, `value`, `visitors`, `last_seen`) for every name, which techListRows ranks and
 * cuts; the raw rows are read once for all lists. With `events`, also the events breakdown
 * (`list` n) and the event totals (`list` n + 1), from one read of the raw events. Carries `still_built`.
 */
export function duckdbRolledLists(sql: DuckDbSql, days: SealedDays, scope: ReportScope, dims: readonly LabelDim[], events = false): string {
  const names = events ? [...dims, 'events', 'event_totals'] : [...dims];
  const labels = dims.map((dim, i) => `${labelExpression(sql, dim)} AS l${i}`).join(', ');
  const list = `CASE dim ${names.map((dim, i) => `WHEN ${sql.bind(dim)} THEN ${i}`).join(' ')} END`;
  const rolled = `SELECT ${list} AS list, name, value, visitors, last_seen FROM ${ROLLUP_LABELS}
    WHERE ${ofVariant(sql, scope, variantOf(scope.filters))} AND dim IN (${names.map((dim) => sql.bind(dim)).join(', ')}) AND ${dayNamed(sql, days)}`;
  const raw = dims.map((_, i) => `SELECT ${i}, coalesce(l${i}, ''), count(*), ${VISITORS}, NULL::BIGINT FROM raw GROUP BY coalesce(l${i}, ''), ${DAY}`);
  const n = dims.length;
  const rawEvents = events
    ? [
        `SELECT ${n}, event, count(*), count(DISTINCT visitor_key), max(ts) FROM raw_events GROUP BY event, ${DAY}`,
        `SELECT ${n + 1}, '', count(*), count(DISTINCT visitor_key), NULL::BIGINT FROM raw_events GROUP BY ${DAY}`,
      ]
    : [];
  const rows = rowsOutsideRollups(sql, scope, days, ['ts', 'visitor_key', 'unique', ...CANONICAL_EVENT_COLUMNS, ...dims.map((dim) => BREAKDOWN_COLUMNS[dim])]);
  return `
    WITH raw AS MATERIALIZED (SELECT ts, visitor_key, "unique", ${labels} FROM ${rows} AS e WHERE ${CANONICAL}),
    ${events ? `raw_events AS MATERIALIZED (SELECT ts, visitor_key, event FROM ${rows} AS e WHERE ${CANONICAL_EVENTS}),` : ''}
    answer AS (
      SELECT list, name, sum(value) AS value, sum(visitors) AS visitors, max(last_seen) AS last_seen
      FROM (${[rolled, ...raw, ...rawEvents].join(' UNION ALL ')}) GROUP BY list, name
    )
    SELECT c.still_built, a.* FROM ${stillBuilt(sql, scope, days, variantOf(scope.filters))} AS c LEFT JOIN answer AS a ON true`;
}

type Args = [scope: ReportScope, dims: readonly LabelDim[], limit: number];

/** The tech lists of `dims` (the port's `breakdowns`), each ranked and cut as its breakdown. */
export const techListsReport: Report<Args, Record<LabelDim, BreakdownRow[]>> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, scope, dims, limit) => techListRows(dims, limit, await db.run(techLists, scope, dims, limit)),
  rolled: {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : {
      need: 'labels',
      read: readOf,
      statement: (sql, days, scope, dims) => duckdbRolledLists(sql, days, scope, dims),
      answer: (rows, _scope, dims, limit) => techListRows(dims, limit, listed(rows)),
    },
    clickhouse: {
      need: 'labels',
      read: readOf,
      split: true,
      statement: (sql, tables, days, part, scope, dims) => rolledLists(sql, tables, scope, dims, days, part),
      answer: (rows, _scope, dims, limit) => techListRows(dims, limit, listRows(rows)),
    },
  },
};
