/**
 * Retention (engagement retention, DESIGN.md §4): how many canonical pages
 * have a measured duration and scroll, and how many reached each duration
 * (`d0`…) and scroll (`s0`…) threshold.
 */
import type { Engagement, ReportScope } from '#ports/report-store.ts';
import type { Query, ResultRow } from './dialect.ts';
import { engagedPages } from './engaged-pages.ts';
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

export const retention: Query<Thresholds> = {
  duckdb: (sql, scope, durations, scrolls) =>
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
