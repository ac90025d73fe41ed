/**
 * Retention (engagement retention, DESIGN.md §4): how many canonical pages
 * have a measured duration and scroll, and how many reached each duration
 * (`d0`…) and scroll (`s0`…) threshold. From the rows in every store, and
 * with the engaged pages of the sealed days from the daily rollups in DuckDB
 * and ClickHouse.
 */
import type { Engagement, ReportScope } from '#ports/report-store.ts';
import { UNFILTERED } from '../plan.ts';
import { WITHOUT_DUCKDB, type DialectName, type Query, type ResultRow } from './dialect.ts';
import { stillBuilt } from './dialects/duckdb-rollups.ts';
import { clickhouseRolledEngaged, duckdbRolledEngaged, engagedPages } from './engaged-pages.ts';
import { FIRST_SLICE_STORES, readOf, type Report } from './report.ts';
import { sumRows } from './rolled-merge.ts';
import { num, type SqlText } from './text.ts';

type Thresholds = [scope: ReportScope, durations: readonly number[], scrolls: readonly number[]];

/** The counts over `page`, written the same in every dialect (count of a CASE, no FILTER clause). */
export function thresholdCounts(sql: SqlText, durations: readonly number[], scrolls: readonly number[]): string {
  const countWhen = (condition: string, name: string) => `count(CASE WHEN ${condition} THEN 1 END) AS ${sql.column(name)}`;
  return [
    countWhen(`${sql.column('total_duration')} IS NOT NULL`, 'measured'),
    countWhen(`${sql.column('scroll')} IS NOT NULL`, 'scroll_measured'),
    ...durations.map((s, i) => countWhen(`${sql.column('total_duration')} >= ${sql.number(s)}`, `d${i}`)),
    ...scrolls.map((pct, i) => countWhen(`${sql.column('scroll')} >= ${sql.number(pct)}`, `s${i}`)),
  ].join(', ');
}

export const retention: Query<Thresholds, DialectName> = {
  duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : (sql, scope, durations, scrolls) =>
    `WITH ${engagedPages.duckdb(sql, [scope], scope.from, scope.to, scope.filters)} SELECT ${thresholdCounts(sql, durations, scrolls)} FROM page`,
  timestream: (sql, scope, durations, scrolls) =>
    `WITH ${engagedPages.timestream(sql, [scope], scope.from, scope.to, scope.filters)} SELECT ${thresholdCounts(sql, durations, scrolls)} FROM page`,
  clickhouse: (sql, scope, durations, scrolls) =>
    `WITH ${engagedPages.clickhouse(sql, [scope], scope.from, scope.to, scope.filters)} SELECT ${thresholdCounts(sql, durations, scrolls)} FROM page`,
};

export function engagementOf(durations: readonly number[], scrolls: readonly number[], rows: readonly ResultRow[]): Engagement {
  const r = rows[0];
  return {
    measured: num(r?.measured),
    scrollMeasured: num(r?.scroll_measured),
    durationAtLeast: Object.fromEntries(durations.map((sec, i) => [sec, num(r?.[`d${i}`])])),
    scrollAtLeast: Object.fromEntries(scrolls.map((pct, i) => [pct, num(r?.[`s${i}`])])),
  };
}

export const retentionReport: Report<Thresholds, Engagement> = {
  stores: FIRST_SLICE_STORES,
  rows: async (db, scope, durations, scrolls) => engagementOf(durations, scrolls, await db.run(retention, scope, durations, scrolls)),
  rolled: {
    duckdb: process.env.TT_LAMBDA_BUNDLE === '1' ? WITHOUT_DUCKDB : {
      need: 'pages',
      read: readOf,
      // The counts over the engaged pages of the named days (stored) and of the rest (joined now), with `still_built`.
      statement: (sql, days, scope, durations, scrolls) => `
        WITH ${duckdbRolledEngaged(sql, scope, [scope.from, scope.to], days, scope.filters)}
        SELECT c.still_built, t.* FROM ${stillBuilt(sql, scope, days, UNFILTERED)} AS c CROSS JOIN (
          SELECT ${thresholdCounts(sql, durations, scrolls)} FROM engaged AS page) AS t`,
      answer: (rows, _scope, durations, scrolls) => engagementOf(durations, scrolls, rows),
    },
    clickhouse: {
      need: 'pages',
      read: readOf,
      split: true,
      statement: (sql, tables, days, part, scope, durations, scrolls) => {
        const engaged = clickhouseRolledEngaged(sql, tables, scope, days, scope.filters, part);
        return engaged && `WITH ${engaged} SELECT ${thresholdCounts(sql, durations, scrolls)} FROM engaged`;
      },
      answer: (rows, _scope, durations, scrolls) => {
        const counted = ['measured', 'scroll_measured', ...durations.map((_, i) => `d${i}`), ...scrolls.map((_, i) => `s${i}`)];
        return engagementOf(durations, scrolls, sumRows(rows, [], counted));
      },
    },
  },
};
