/**
 * The ReportStore of every SQL store: which queries a report runs and how
 * their rows become the port's answers, written once. A store adapter only
 * provides the QueryRunner that builds its dialect's statements and runs them.
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, Engagement, LabelDim, ReportScope, ReportStore, SiteRef, SummaryLists, TrafficRow, TrafficScope } from '#ports/report-store.ts';
import { breakdown, breakdownRow } from './breakdown.ts';
import type { QueryRunner, ResultRow } from './dialect.ts';
import { eventBreakdown, eventBreakdownRow } from './event-breakdown.ts';
import { eventTotals, eventTotalsOf } from './event-totals.ts';
import { livePageRow, livePages, type LiveScope } from './live-pages.ts';
import { liveVisitors, liveVisitorsBySite } from './live-visitors.ts';
import { engagementOf, retention } from './retention.ts';
import { techListRows, techLists } from './tech-lists.ts';
import { trafficCounts, trafficEngagement, trafficRows } from './traffic.ts';

export class SqlReportStore implements ReportStore {
  constructor(protected readonly db: QueryRunner) {}

  /**
   * Per-bucket rows and the whole-range row come from separate statements
   * (distinct counts do not add up across buckets), and engagement from a
   * third that reads only pages that have any; all run side by side.
   */
  async traffic(scope: TrafficScope): Promise<TrafficRow[]> {
    if (scope.sites.length === 0) return [];
    const [[perBucket, totals], engagement] = await Promise.all([this.countRows(scope), this.engagementRows(scope)]);
    return trafficRows(perBucket, totals, engagement);
  }

  /** The traffic's counts (traffic.ts): per site and bucket (null when the plan is one bucket), and per site over the range. */
  protected countRows(scope: TrafficScope): Promise<[ResultRow[] | null, ResultRow[]]> {
    const bounds = scope.boundaries;
    return Promise.all([
      bounds.length > 2 ? this.db.run(trafficCounts, scope, bounds) : null,
      this.db.run(trafficCounts, scope, [bounds[0]!, bounds[bounds.length - 1]!]),
    ]);
  }

  /** The traffic's engagement rows (traffic.ts), per site and bucket and per site over the range. */
  protected engagementRows(scope: TrafficScope): Promise<ResultRow[]> {
    return this.db.run(trafficEngagement, scope);
  }

  async liveVisitors(sites: readonly SiteRef[], since: number): Promise<Map<string, number>> {
    if (sites.length === 0) return new Map();
    return liveVisitorsBySite(await this.db.run(liveVisitors, sites, since));
  }

  async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    if (dim === 'events') return (await this.db.run(eventBreakdown, scope, limit)).map(eventBreakdownRow);
    return (await this.db.run(breakdown, scope, dim, limit)).map(breakdownRow);
  }

  async breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    return techListRows(dims, limit, await this.db.run(techLists, scope, dims, limit));
  }

  async summaryLists<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<SummaryLists<D>> {
    const [lists, events, totals] = await Promise.all([this.breakdowns(scope, dims, limit), this.breakdown(scope, 'events', limit), this.eventTotals(scope)]);
    return { lists, events, totals };
  }

  async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    return eventTotalsOf(await this.db.run(eventTotals, scope));
  }

  async livePages(scope: LiveScope, limit: number): Promise<{ name: string; visitors: number }[]> {
    return (await this.db.run(livePages, scope, limit)).map(livePageRow);
  }

  async engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    return engagementOf(durations, scrolls, await this.db.run(retention, scope, durations, scrolls));
  }
}
