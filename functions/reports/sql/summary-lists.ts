/**
 * The overview summary's lists of one scope: the tech lists (tech-lists.ts),
 * the `events` breakdown and the event totals, each as its own report answers
 * it. From the daily rollups in one statement where DuckDB or ClickHouse keep
 * them; else from those reports (DuckDB reads the events and their totals in
 * one scan).
 */
import type { BreakdownRow, LabelDim, ReportScope, SummaryLists } from '#ports/report-store.ts';
import { breakdownReport, byValueThenName, eventBreakdownRow } from './breakdown.ts';
import { WITHOUT_DUCKDB, type Query, type ResultRow } from './dialect.ts';
import { rolledLists } from './dialects/clickhouse-rollups.ts';
import { eventRows, eventTotalsOf, eventTotalsReport } from './event-totals.ts';
import { FIRST_SLICE_STORES, readOf, type Report } from './report.ts';
import { listRows } from './rolled-merge.ts';
import { duckdbRolledLists, listed, techListRows, techListsReport } from './tech-lists.ts';
import { num } from './text.ts';

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

/**
 * DuckDB: the events breakdown and the event totals from one scan, as the summary reads both
 * where no rollup answers (a filtered scope): the range's row (`whole` 1) first, then the top
 * `limit` names.
 */
export const eventsWithTotals: Query<[scope: ReportScope, limit: number], 'duckdb'> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, limit) => `
    SELECT grouping(event) AS whole, event AS name, count(*) AS value, count(DISTINCT visitor_key) AS visitors, max(ts) AS last_seen
    FROM events WHERE ${eventRows.duckdb(sql, scope)}
    GROUP BY GROUPING SETS ((event), ()) ORDER BY whole DESC, value DESC, name ASC LIMIT ${sql.limit(limit + 1)}`,
};

/** eventsWithTotals' rows as the events breakdown and the totals. */
export function eventsWithTotalsOf(rows: readonly ResultRow[]): { events: BreakdownRow[]; totals: { count: number; visitors: number } } {
  const whole = rows.find((r) => num(r.whole) === 1);
  return {
    events: rows.filter((r) => num(r.whole) === 0).map(eventBreakdownRow),
    totals: { count: num(whole?.value), visitors: num(whole?.visitors) },
  };
}

type Args = [scope: ReportScope, dims: readonly LabelDim[], limit: number];

export const summaryListsReport: Report<Args, SummaryLists<LabelDim>> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, scope, dims, limit) => {
    if (db.dialect === 'duckdb') {
      const [lists, events] = await Promise.all([db.answer(techListsReport, scope, dims, limit), db.run(eventsWithTotals, scope, limit)]);
      return { lists, ...eventsWithTotalsOf(events) };
    }
    const [lists, events, totals] = await Promise.all([
      db.answer(techListsReport, scope, dims, limit),
      db.answer(breakdownReport, scope, 'events', limit),
      db.answer(eventTotalsReport, scope),
    ]);
    return { lists, events, totals };
  },
  rolled: {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : {
      need: 'labels',
      read: readOf,
      statement: (sql, days, scope, dims) => duckdbRolledLists(sql, days, scope, dims, true),
      answer: (rows, _scope, dims, limit) => summaryListsOf(dims, limit, listed(rows)),
    },
    clickhouse: {
      need: 'labels',
      read: readOf,
      split: true,
      statement: (sql, tables, days, part, scope, dims) => rolledLists(sql, tables, scope, [...dims, 'events', 'event_totals'], days, part),
      answer: (rows, _scope, dims, limit) => summaryListsOf(dims, limit, listRows(rows)),
    },
  },
};
