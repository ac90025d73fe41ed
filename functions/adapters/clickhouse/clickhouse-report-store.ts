/**
 * Report aggregates over the ClickHouse events table: the report queries'
 * ClickHouse dialect (functions/reports/sql), run through the executor. With
 * the daily rollups (rollups.ts), unfiltered breakdowns, tech lists, event
 * totals, retention and one site's traffic engagement read the sealed days
 * from them and only the other parts of the range from the rows
 * (reports/sql/clickhouse-rolled.ts).
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, Engagement, LabelDim, ReportScope, SiteRef, SummaryLists, TrafficScope } from '#ports/report-store.ts';
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import { ClickHouseSql } from '#reports/sql/dialects/clickhouse.ts';
import { breakdownRow, byValueThenName } from '#reports/sql/breakdown.ts';
import {
  clickhouseRolledBreakdown,
  clickhouseRolledCounts,
  clickhouseRolledEngagement,
  clickhouseRolledEventTotals,
  clickhouseRolledRetention,
  clickhouseRolledSummaryLists,
  clickhouseRolledTechLists,
  type RolledDays,
} from '#reports/sql/clickhouse-rolled.ts';
import { engagementOf } from '#reports/sql/retention.ts';
import { eventBreakdownRow } from '#reports/sql/event-breakdown.ts';
import { eventTotalsOf } from '#reports/sql/event-totals.ts';
import { NO_SEALED_DAYS, sealedDays, trafficDays } from '#reports/sql/sealed-days.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import { summaryListsOf, techListRows } from '#reports/sql/tech-lists.ts';
import { log } from '#platform/log.ts';
import type { ClickHouseEventStore } from './clickhouse-event-store.ts';
import { OPEN_DAYS, type RollupKind, type UsableBuild } from './rollups.ts';

/** LEFT JOINs give NULLs for missing rows, as every dialect's SQL expects (the HTTP executor sets it per session too). */
const REPORT_SETTINGS = ' SETTINGS join_use_nulls = 1';

/** Builds each statement in a fresh context, so its parameters are its own. */
export class ClickHouseQueryRunner implements QueryRunner {
  constructor(private readonly events: ClickHouseEventStore) {}

  run<A extends unknown[]>(query: Query<A>, ...args: A): Promise<ResultRow[]> {
    return this.runClickHouse((sql) => query.clickhouse(sql, ...args));
  }

  /** A ClickHouse-only statement (the rollup reads). */
  runClickHouse(build: (sql: ClickHouseSql) => string): Promise<ResultRow[]> {
    const sql = new ClickHouseSql(this.events.table);
    const text = build(sql);
    return this.events.executor.query<ResultRow>(text + REPORT_SETTINGS, sql.params);
  }
}

/** The answer's rows without the rollup reads' sentinel (rows with a null `list`). */
const answerRows = (rows: readonly ResultRow[]) => rows.filter((r) => r.list !== null && r.list !== undefined);

const siteKey = (scope: SiteRef) => `${scope.site}\u0000${scope.registration}`;

export class ClickHouseReportStore extends SqlReportStore {
  private readonly clickhouse: ClickHouseQueryRunner;
  /**
   * Each site's usable builds as last looked up. A read names them without a look-up statement:
   * one a batch has marked stale since shows in the read's `stale`, and the site is looked up again.
   */
  private readonly known = new Map<string, Map<number, UsableBuild>>();

  /** With `rollups` off, every report reads the rows (the tests compare both ways). `now` decides which days are sealed. */
  constructor(
    private readonly events: ClickHouseEventStore,
    private readonly options: { rollups?: boolean; now?: () => number } = {},
  ) {
    const runner = new ClickHouseQueryRunner(events);
    super(runner);
    this.clickhouse = runner;
  }

  /**
   * Runs `read` over the usable builds (of `kind`) of the sealed days of the scope (building the
   * missing ones first) and the rows of the rest; null when the rows answer alone, as they do for
   * a filtered scope unless `filtered` says `read` applies the filters to the rollups.
   * A batch that marked a named day stale before the read shows in the answer's `stale` (a
   * sentinel row's, or the one row's): the site's builds are looked up again and the read runs
   * again; after three such races the rows answer. The rows returned include the sentinel.
   */
  private async rolled(
    scope: SiteRef & { from: number; to: number; filters: ReportScope['filters'] },
    kind: RollupKind,
    read: (sql: ClickHouseSql, days: RolledDays) => string,
    filtered = false,
  ): Promise<ResultRow[] | null> {
    // A label or slot rollup keeps no row's other labels; a stored page keeps the filters' columns.
    if (this.options.rollups === false || (scope.filters.length > 0 && !filtered)) return null;
    const range = sealedDays(scope.from, scope.to, (this.options.now ?? Date.now)(), OPEN_DAYS[kind]);
    if (!range) return null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const builds = await this.builds(scope, kind, range.first, range.last);
      const built: number[] = [];
      const builtAt: number[] = [];
      for (let d = range.first; d <= range.last; d++) {
        const build = builds.get(d);
        if (!build || !usableFor(build, kind)) continue;
        built.push(d);
        builtAt.push(build.builtAt);
      }
      const rows = await this.clickhouse.runClickHouse((sql) => read(sql, { ...range, built, builtAt }));
      const sentinel = rows.find((r) => r.stale !== null && r.stale !== undefined);
      if (sentinel && Number(sentinel.stale) === 0) return rows;
      this.known.delete(siteKey(scope));
    }
    return null;
  }

  /** The site's usable builds, covering first..last for `kind`: remembered, else looked up, building the days that lack one. */
  private async builds(scope: SiteRef, kind: RollupKind, first: number, last: number): Promise<Map<number, UsableBuild>> {
    const key = siteKey(scope);
    const lacking = (m: Map<number, UsableBuild>) => {
      const days: number[] = [];
      for (let d = first; d <= last; d++) {
        const build = m.get(d);
        if (!build || !usableFor(build, kind)) days.push(d);
      }
      return days;
    };
    const remembered = this.known.get(key);
    if (remembered && lacking(remembered).length === 0) return remembered;
    const { rollups } = this.events;
    const lookUp = async () => new Map((await rollups.usable(scope.site, scope.registration)).map((u) => [u.day, u]));
    let builds = await lookUp();
    const missing = lacking(builds);
    if (missing.length > 0) {
      try {
        await rollups.build(scope.site, scope.registration, missing);
      } catch (e) {
        // A build that fails (a timeout, a full disk) costs speed, not the answer: those days are read from rows.
        log.warn('clickhouse rollup build failed: its days are read from rows', { days: missing.length, message: (e as Error).message });
      }
      builds = await lookUp();
    }
    this.known.set(key, builds);
    return builds;
  }

  override async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    const rows = await this.rolled(scope, 'labels', (sql, days) => clickhouseRolledBreakdown(sql, this.events.rollups.tables, scope, dim, days, limit));
    if (!rows) return super.breakdown(scope, dim, limit);
    return answerRows(rows).map(dim === 'events' ? eventBreakdownRow : breakdownRow).sort(byValueThenName);
  }

  override async breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    const rows = await this.rolled(scope, 'labels', (sql, days) => clickhouseRolledTechLists(sql, this.events.rollups.tables, scope, dims, days));
    return rows ? techListRows(dims, limit, answerRows(rows)) : super.breakdowns(scope, dims, limit);
  }

  /**
   * The summary's tech lists, events breakdown and event totals in one rolled statement; a filtered
   * scope's (which no label rollup answers) in one statement over its rows.
   */
  override async summaryLists<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<SummaryLists<D>> {
    const read = (sql: ClickHouseSql, days: RolledDays) => clickhouseRolledSummaryLists(sql, this.events.rollups.tables, scope, dims, days);
    const rows = scope.filters.length > 0 ? await this.clickhouse.runClickHouse((sql) => read(sql, { ...NO_SEALED_DAYS, builtAt: [] })) : await this.rolled(scope, 'labels', read);
    return rows ? summaryListsOf(dims, limit, answerRows(rows)) : super.summaryLists(scope, dims, limit);
  }

  override async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const rows = await this.rolled(scope, 'labels', (sql, days) => clickhouseRolledEventTotals(sql, this.events.rollups.tables, scope, days));
    if (!rows) return super.eventTotals(scope);
    const [total] = answerRows(rows);
    return eventTotalsOf([{ count: total?.value, visitors: total?.visitors }]);
  }

  override async engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    const rows = await this.rolled(scope, 'pages', (sql, days) => clickhouseRolledRetention(sql, this.events.rollups.tables, scope, days, durations, scrolls), true);
    return rows ? engagementOf(durations, scrolls, rows) : super.engagement(scope, durations, scrolls);
  }

  /** One site's unfiltered counts from the slot rollups of the days they can answer; more sites, or filters, read the rows. */
  protected override async countRows(scope: TrafficScope): Promise<[ResultRow[] | null, ResultRow[]]> {
    const [site] = scope.sites;
    const bounds = scope.boundaries;
    if (!site || scope.sites.length > 1) return super.countRows(scope);
    const range = { ...site, from: bounds[0] as number, to: bounds[bounds.length - 1] as number, filters: scope.filters };
    const rows = await this.rolled(range, 'labels', (sql, days) => clickhouseRolledCounts(sql, this.events.rollups.tables, site, bounds, slotDays(days, bounds)));
    if (!rows) return super.countRows(scope);
    const part = (name: string) => rows.filter((r) => r.part === name).map((r) => ({ ...r, site: site.site }));
    return [bounds.length > 2 ? part('bucket') : null, part('total')];
  }

  /** One site's engagement, filtered or not, from the pages rollups; more sites read the rows. */
  protected override async engagementRows(scope: TrafficScope): Promise<ResultRow[]> {
    const [site] = scope.sites;
    const bounds = scope.boundaries;
    if (!site || scope.sites.length > 1) return super.engagementRows(scope);
    const range = { ...site, from: bounds[0] as number, to: bounds[bounds.length - 1] as number, filters: scope.filters };
    const rows = await this.rolled(range, 'pages', (sql, days) => clickhouseRolledEngagement(sql, this.events.rollups.tables, site, bounds, days, scope.filters), true);
    return rows ? rows.filter((r) => r.site !== null && r.site !== undefined) : super.engagementRows(scope);
  }
}

/** Only the named days whose slots can answer the buckets (at most one boundary inside, on a slot's start); the rest are read from rows. */
function slotDays(days: RolledDays, bounds: readonly number[]): RolledDays {
  const usable = new Set(trafficDays(days.built, bounds));
  const keep = days.built.map((d) => usable.has(d));
  return { ...days, built: days.built.filter((_, i) => keep[i]), builtAt: days.builtAt.filter((_, i) => keep[i]) };
}

/** Whether a build answers for `kind`: pages also need no mark of the next day as new. */
const usableFor = (build: UsableBuild, kind: RollupKind) => kind === 'labels' || build.pages;
