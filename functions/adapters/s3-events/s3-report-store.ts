/**
 * Reports over the S3 store (issue 44): each read loads its sites' days into the mirror
 * (mirror.ts), then runs the DuckDB store's report SQL over it (duckdb-report-store.ts, reading
 * rows: the mirror holds no rollups). The range a read loads is the one its scope names.
 */
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { GoalMatch } from '#ports/goals.ts';
import type { LabelDim, ReportScope, ReportStore, SiteRef, TrafficScope } from '#ports/report-store.ts';
import type { EventMirror } from './mirror.ts';

export class S3ReportStore implements ReportStore {
  private readonly rows: DuckDbReportStore;

  constructor(
    private readonly mirror: EventMirror,
    private readonly now: () => number = Date.now,
  ) {
    this.rows = new DuckDbReportStore({ query: (sql, params) => mirror.query(sql, params) });
  }

  /** Runs `read` over the scope's site and range. */
  private over<T>(scope: ReportScope, read: (rows: DuckDbReportStore) => Promise<T>): Promise<T> {
    return this.mirror.over([scope], scope.from, scope.to, () => read(this.rows));
  }

  /** Live reads reach past now: a row's clock may run ahead. */
  private live<T>(sites: readonly SiteRef[], since: number, read: (rows: DuckDbReportStore) => Promise<T>): Promise<T> {
    return this.mirror.over(sites, since, this.now() + DAY_MS, () => read(this.rows));
  }

  /** No rollups yet: every read is from the listed files' rows. */
  warmRollups(): Promise<number> {
    return Promise.resolve(0);
  }

  traffic(scope: TrafficScope) {
    const from = scope.boundaries[0] ?? 0;
    const to = (scope.boundaries[scope.boundaries.length - 1] ?? from) + 1;
    return this.mirror.over(scope.sites, from, to, () => this.rows.traffic(scope));
  }

  liveVisitors(sites: readonly SiteRef[], since: number, filters?: readonly FilterClause[]) {
    return this.live(sites, since, (rows) => rows.liveVisitors(sites, since, filters));
  }

  breakdown(scope: ReportScope, dim: BreakdownDim, limit: number) {
    return this.over(scope, (rows) => rows.breakdown(scope, dim, limit));
  }

  breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number) {
    return this.over(scope, (rows) => rows.breakdowns(scope, dims, limit));
  }

  eventTotals(scope: ReportScope) {
    return this.over(scope, (rows) => rows.eventTotals(scope));
  }

  summaryLists<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number) {
    return this.over(scope, (rows) => rows.summaryLists(scope, dims, limit));
  }

  livePages(scope: Omit<ReportScope, 'from' | 'to'> & { since: number }, limit: number) {
    return this.live([scope], scope.since, (rows) => rows.livePages(scope, limit));
  }

  engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]) {
    return this.over(scope, (rows) => rows.engagement(scope, durations, scrolls));
  }

  goalStats(scope: ReportScope, goals: readonly GoalMatch[]) {
    return this.over(scope, (rows) => rows.goalStats(scope, goals));
  }

  funnel(scope: ReportScope, steps: readonly GoalMatch[]) {
    return this.over(scope, (rows) => rows.funnel(scope, steps));
  }

  eventMetadata(scope: ReportScope, event: string, key: string | null, limit: number) {
    return this.over(scope, (rows) => rows.eventMetadata(scope, event, key, limit));
  }
}
