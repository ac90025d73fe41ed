/**
 * The ReportStore of every SQL store: which report (a query file's `Report`)
 * answers each of the port's questions, and how a report is answered,
 * written once. A store adapter provides the QueryRunner that builds its
 * dialect's statements and runs them, and where it keeps daily rollups, the
 * execution of the plans reports/plan.ts makes (`fromRollups`).
 */
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { Logger } from '#ports/logger.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import type { BreakdownRow, Engagement, LabelDim, ReportScope, ReportStore, SiteRef, SummaryLists, TrafficRow, TrafficScope } from '#ports/report-store.ts';
import { breakdownReport } from './breakdown.ts';
import { eventMetadataReport, funnelReport, goalStatsReport, type GoalStats } from './conversions.ts';
import type { GoalMatch } from '#ports/goals.ts';
import type { DialectName, Query, QueryRunner, ResultRow } from './dialect.ts';
import { eventTotalsReport } from './event-totals.ts';
import { exitPagesReport } from './exit-pages.ts';
import { livePagesReport, type LiveScope } from './live-pages.ts';
import { liveVisitorsReport } from './live-visitors.ts';
import type { Report, ReportReader } from './report.ts';
import { retentionReport } from './retention.ts';
import { summaryListsReport } from './summary-lists.ts';
import { techListsReport } from './tech-lists.ts';
import { trafficEngagementReport } from './traffic-engagement.ts';
import { trafficCountsReport, trafficRows } from './traffic.ts';

/** The log of a store built without one (the tests'): its warnings are dropped. */
export const QUIET_LOG: Logger = { warn: () => undefined, error: () => undefined };

export class SqlReportStore implements ReportStore, ReportReader {
  constructor(protected readonly db: QueryRunner) {}

  get dialect(): DialectName {
    return this.db.dialect;
  }

  run<A extends unknown[]>(query: Query<A, never>, ...args: A): Promise<ResultRow[]> {
    return this.db.run(query, ...args);
  }

  /**
   * A report's answer: refused before anything is read when the store is not among its stores;
   * from the daily rollups where the store keeps them and the plan names days; else from the rows.
   */
  async answer<A extends unknown[], R>(report: Report<A, R>, ...args: A): Promise<R> {
    if (!report.stores.includes(this.dialect)) throw new NotAvailableOnStoreError();
    return (await this.fromRollups(report, args)) ?? report.rows(this, ...args);
  }

  /** A report's answer from the store's rollups; null when the rows answer it (a store without rollups: always). */
  protected fromRollups<A extends unknown[], R>(_report: Report<A, R>, _args: A): Promise<R | null> {
    return Promise.resolve(null);
  }

  /** A store without rollups has none to build. */
  warmRollups(_site: SiteRef, _from: number, _to: number): Promise<number> {
    return Promise.resolve(0);
  }

  /**
   * Per-bucket rows and the whole-range row come from separate statements
   * (distinct counts do not add up across buckets), and engagement from a
   * third that reads only pages that have any; all run side by side.
   */
  async traffic(scope: TrafficScope): Promise<TrafficRow[]> {
    if (scope.sites.length === 0) return [];
    const [[perBucket, totals], engagement] = await Promise.all([this.answer(trafficCountsReport, scope), this.answer(trafficEngagementReport, scope)]);
    return trafficRows(perBucket, totals, engagement);
  }

  async liveVisitors(sites: readonly SiteRef[], since: number, filters: readonly FilterClause[] = []): Promise<Map<string, number>> {
    if (sites.length === 0) return new Map();
    return this.answer(liveVisitorsReport, sites, since, filters);
  }

  breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    return dim === 'exit_pages' ? this.answer(exitPagesReport, scope, limit) : this.answer(breakdownReport, scope, dim, limit);
  }

  breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    return this.answer(techListsReport, scope, dims, limit);
  }

  summaryLists<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<SummaryLists<D>> {
    return this.answer(summaryListsReport, scope, dims, limit);
  }

  eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    return this.answer(eventTotalsReport, scope);
  }

  livePages(scope: LiveScope, limit: number): Promise<{ name: string; visitors: number }[]> {
    return this.answer(livePagesReport, scope, limit);
  }

  engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    return this.answer(retentionReport, scope, durations, scrolls);
  }

  goalStats(scope: ReportScope, goals: readonly GoalMatch[]): Promise<GoalStats> {
    return this.answer(goalStatsReport, scope, goals);
  }

  funnel(scope: ReportScope, steps: readonly GoalMatch[]): Promise<number[]> {
    return this.answer(funnelReport, scope, steps);
  }

  eventMetadata(scope: ReportScope, event: string, key: string | null, limit: number): Promise<BreakdownRow[]> {
    return this.answer(eventMetadataReport, scope, event, key, limit);
  }
}
