/**
 * Report aggregates over the DuckDB `events` view: the report queries'
 * DuckDB dialect (functions/reports/sql), run on connections of the injected
 * read pool. With the store's daily rollups (rollups.ts), unfiltered
 * breakdowns, tech lists and event totals read the sealed days from them and
 * only the partial days at the ends from the rows.
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, Engagement, LabelDim, ReportScope, SummaryLists, TrafficRow, TrafficScope } from '#ports/report-store.ts';
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import { listValue } from '@duckdb/node-api';
import { DuckDbSql } from '#reports/sql/dialects/duckdb.ts';
import { breakdownRow } from '#reports/sql/breakdown.ts';
import { duckdbEventsWithTotals, eventBreakdownRow, eventsWithTotalsOf } from '#reports/sql/event-breakdown.ts';
import { eventTotalsOf } from '#reports/sql/event-totals.ts';
import { engagementOf } from '#reports/sql/retention.ts';
import { rolledBreakdown, rolledEventTotals, rolledTechLists } from '#reports/sql/rolled.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { daysToBuild, rollupVariant, sealedDays, trafficDays, type SealedDays } from '#reports/sql/sealed-days.ts';
import { rolledRetention, rolledTrafficCounts, rolledTrafficEngagement } from '#reports/sql/rolled-traffic.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import { summaryListsOf, techListRows } from '#reports/sql/tech-lists.ts';
import { filteredTrafficCounts, trafficRows } from '#reports/sql/traffic.ts';
import { log } from '#platform/log.ts';
import type { ReadPool } from './read-pool.ts';

/** Builds each statement in a fresh context, so its parameters are its own. */
export class DuckDbQueryRunner implements QueryRunner {
  constructor(private readonly pool: ReadPool) {}

  run<A extends unknown[]>(query: Query<A>, ...args: A): Promise<ResultRow[]> {
    return this.runDuckDb((sql) => query.duckdb(sql, ...args));
  }

  /** A DuckDB-only statement (the rollup reads). */
  runDuckDb(build: (sql: DuckDbSql) => string): Promise<ResultRow[]> {
    const sql = new DuckDbSql(listValue);
    const text = build(sql);
    return this.pool.query<ResultRow>(text, sql.params);
  }
}

/** What builds the rollups a read needs and knows which are built: the event store, between its batches. `filters` name the variant (sealed-days.ts rollupVariant). */
export interface RollupBuilder {
  ensureRollups(site: string, registration: string, first: number, last: number, filters?: readonly FilterClause[]): Promise<void>;
  builtRollupDays(site: string, registration: string, first: number, last: number, filters?: readonly FilterClause[]): Promise<number[]>;
}

export class DuckDbReportStore extends SqlReportStore {
  private readonly duckdb: DuckDbQueryRunner;

  /** Without `rollups`, every report reads the rows (the tests compare both ways). `now` decides which days are sealed. */
  constructor(
    pool: ReadPool,
    private readonly rollups: RollupBuilder | null = null,
    private readonly now: () => number = Date.now,
  ) {
    const runner = new DuckDbQueryRunner(pool);
    super(runner);
    this.duckdb = runner;
  }

  /**
   * Runs `read` over the rollups of the sealed days of the scope (building the missing ones first)
   * that `usable` keeps, and the rows of the rest; null when the rows answer alone. The rollups
   * are those of the scope's filters (sealed-days.ts rollupVariant: none, or one `dim:value` clause;
   * other filters read rows), or with `pages` the site's own, whose stored pages `read` filters.
   * With `partial`, the sealed days the range only cuts into are named too when built (`read`
   * bounds their ts). Building takes the writer's turn, so it is asked for only when a whole day
   * lacks its rollup (sealed-days.ts daysToBuild). A batch that removed a rollup between the look
   * and the read shows in `still_built`: the read runs again, and after three such races the rows
   * answer.
   */
  private async rolled(
    scope: ReportScope,
    read: (sql: DuckDbSql, days: SealedDays) => string,
    { usable = (built: number[]) => built, pages = false, partial = false }: { usable?: (built: number[]) => number[]; pages?: boolean; partial?: boolean } = {},
  ): Promise<ResultRow[] | null> {
    const rollups = this.rollups;
    if (!rollups) return null;
    const filters = pages ? [] : scope.filters;
    if (rollupVariant(filters) === null) return null;
    const range = sealedDays(scope.from, scope.to, this.now(), 2, partial);
    if (!range) return null;
    const builtNow = () => rollups.builtRollupDays(scope.site, scope.registration, range.first, range.last, filters);
    for (let attempt = 0; attempt < 3; attempt++) {
      let built = await builtNow();
      const have = new Set(built);
      const lacking: number[] = [];
      for (let d = range.first; d <= range.last; d++) if (!have.has(d)) lacking.push(d);
      if (daysToBuild(lacking, scope).length > 0) {
        try {
          await rollups.ensureRollups(scope.site, scope.registration, range.first, range.last, filters);
        } catch (e) {
          // A build that fails costs speed, not the answer: the days it lacks are read from rows.
          log.warn('duckdb rollup build failed: its days are read from rows', { message: (e as Error).message });
        }
        built = await builtNow();
      }
      const named = usable(built);
      const rows = await this.duckdb.runDuckDb((sql) => read(sql, { ...range, built: named }));
      if (Number(rows[0]?.still_built) === named.length) return rows;
    }
    return null;
  }

  /** Filtered counts of several buckets: per bucket and over the range in one scan of the rows. */
  protected override async countRows(scope: TrafficScope): Promise<[ResultRow[] | null, ResultRow[]]> {
    if (scope.filters.length === 0 || scope.boundaries.length <= 2) return super.countRows(scope);
    const rows = await this.duckdb.runDuckDb((sql) => filteredTrafficCounts(sql, scope));
    return [rows.filter((r) => r.bucket !== null), rows.filter((r) => r.bucket === null)];
  }

  /** One site's counts from the slot rollups of its filters' variant, as countRows gives them; null when the rows answer alone. */
  private async rolledCounts(range: ReportScope, bounds: readonly number[], usable: (built: number[]) => number[]): Promise<[ResultRow[] | null, ResultRow[]] | null> {
    const rows = await this.rolled(range, (sql, days) => rolledTrafficCounts(sql, range, bounds, days, range.filters), { usable });
    if (!rows) return null;
    const part = (name: string) => rows.filter((r) => r.part === name).map((r) => ({ ...r, site: range.site }));
    return [bounds.length > 2 ? part('bucket') : null, part('total')];
  }

  /**
   * One site's traffic from the slot and page rollups (rolled-traffic.ts); more sites read the rows.
   * Counts under a filter no rollup variant answers come from rows; engagement always from the page rollups.
   */
  override async traffic(scope: TrafficScope): Promise<TrafficRow[]> {
    const [site] = scope.sites;
    const bounds = scope.boundaries;
    if (!site || scope.sites.length > 1) return super.traffic(scope);
    const range: ReportScope = { ...site, from: bounds[0] as number, to: bounds[bounds.length - 1] as number, filters: scope.filters };
    // Two statements side by side: the counts and the engagement each take their own read connection.
    const usable = (built: number[]) => trafficDays(built, bounds);
    const [counted, engaged] = await Promise.all([
      rollupVariant(scope.filters) === null ? this.countRows(scope) : this.rolledCounts(range, bounds, usable),
      this.rolled(range, (sql, days) => rolledTrafficEngagement(sql, site, bounds, days, scope.filters), { pages: true, partial: true }),
    ]);
    if (!counted || !engaged) return super.traffic(scope);
    const [perBucket, totals] = counted;
    const engagement = engaged.filter((r) => r.part === 'engagement').map((r) => ({ ...r, site: site.site }));
    if (bounds.length > 2) return trafficRows(perBucket, totals, engagement);
    // One bucket: the range's engagement is also bucket 0's.
    return trafficRows(null, totals, [...engagement, ...engagement.map((r) => ({ ...r, bucket: 0 }))]);
  }

  override async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    const rows = await this.rolled(scope, (sql, days) => rolledBreakdown(sql, scope, dim, days, limit));
    if (!rows) return super.breakdown(scope, dim, limit);
    return rows.filter((r) => r.name !== null && r.name !== undefined).map(dim === 'events' ? eventBreakdownRow : breakdownRow);
  }

  override async breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    const rows = await this.rolled(scope, (sql, days) => rolledTechLists(sql, scope, dims, days));
    if (!rows) return super.breakdowns(scope, dims, limit);
    return techListRows(dims, limit, rows.filter((r) => r.list !== null && r.list !== undefined));
  }

  /**
   * The summary's tech lists, events breakdown and event totals in one rolled statement; where the
   * rows answer, the tech lists in one scan and the events with their totals in another.
   */
  override async summaryLists<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<SummaryLists<D>> {
    const rows = await this.rolled(scope, (sql, days) => rolledTechLists(sql, scope, dims, days, true));
    if (rows) return summaryListsOf(dims, limit, rows.filter((r) => r.list !== null && r.list !== undefined));
    const [lists, events] = await Promise.all([this.breakdowns(scope, dims, limit), this.duckdb.runDuckDb((sql) => duckdbEventsWithTotals(sql, scope, limit))]);
    return { lists, ...eventsWithTotalsOf(events) };
  }

  override async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const rows = await this.rolled(scope, (sql, days) => rolledEventTotals(sql, scope, days));
    return rows ? eventTotalsOf(rows) : super.eventTotals(scope);
  }

  override async engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    const rows = await this.rolled(scope, (sql, days) => rolledRetention(sql, scope, days, durations, scrolls), { pages: true, partial: true });
    return rows ? engagementOf(durations, scrolls, rows) : super.engagement(scope, durations, scrolls);
  }
}
