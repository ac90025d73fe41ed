/**
 * Report aggregates over the ClickHouse events table: the report queries'
 * ClickHouse dialect (functions/reports/sql), run through the executor. With
 * the daily rollups (rollups.ts), unfiltered breakdowns, tech lists and event
 * totals read the sealed days from them and only the other parts of the
 * range from the rows (reports/sql/clickhouse-rolled.ts).
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, LabelDim, ReportScope } from '#ports/report-store.ts';
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import { ClickHouseSql } from '#reports/sql/dialects/clickhouse.ts';
import { breakdownRow, byValueThenName } from '#reports/sql/breakdown.ts';
import { clickhouseRolledBreakdown, clickhouseRolledEventTotals, clickhouseRolledTechLists, type RolledDays } from '#reports/sql/clickhouse-rolled.ts';
import { eventBreakdownRow } from '#reports/sql/event-breakdown.ts';
import { eventTotalsOf } from '#reports/sql/event-totals.ts';
import { sealedDays } from '#reports/sql/sealed-days.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import { techListRows } from '#reports/sql/tech-lists.ts';
import type { ClickHouseEventStore } from './clickhouse-event-store.ts';
import { OPEN_DAYS, type UsableBuild } from './rollups.ts';

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

const siteKey = (scope: ReportScope) => `${scope.site}\u0000${scope.registration}`;

export class ClickHouseReportStore extends SqlReportStore {
  private readonly clickhouse: ClickHouseQueryRunner;
  /**
   * Each site's usable builds as last looked up. A read names them without a look-up statement:
   * one a batch has marked stale since shows in the read's sentinel, and the site is looked up again.
   */
  private readonly known = new Map<string, Map<number, number>>();

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
   * Runs `read` over the usable builds of the sealed days of an unfiltered scope (building the
   * missing ones first) and the rows of the rest; null when the rows answer alone. A batch that
   * marked a named day stale before the read shows in the sentinel's `stale`: the site's builds
   * are looked up again and the read runs again; after three such races the rows answer.
   */
  private async rolled(scope: ReportScope, read: (sql: ClickHouseSql, days: RolledDays) => string): Promise<ResultRow[] | null> {
    // A rollup keeps no row's other labels: filtered scopes read the rows.
    if (this.options.rollups === false || scope.filters.length > 0) return null;
    const range = sealedDays(scope.from, scope.to, (this.options.now ?? Date.now)(), OPEN_DAYS);
    if (!range) return null;
    const key = siteKey(scope);
    for (let attempt = 0; attempt < 3; attempt++) {
      const builds = await this.builds(scope, range.first, range.last);
      const built: number[] = [];
      const builtAt: number[] = [];
      for (let d = range.first; d <= range.last; d++) {
        const at = builds.get(d);
        if (at === undefined) continue;
        built.push(d);
        builtAt.push(at);
      }
      const rows = await this.clickhouse.runClickHouse((sql) => read(sql, { ...range, built, builtAt }));
      const sentinel = rows.find((r) => r.list === null || r.list === undefined);
      if (sentinel && Number(sentinel.stale) === 0) return answerRows(rows);
      this.known.delete(key);
    }
    return null;
  }

  /** The site's usable builds, covering first..last: remembered, else looked up, building the days that lack one. */
  private async builds(scope: ReportScope, first: number, last: number): Promise<Map<number, number>> {
    const key = siteKey(scope);
    const covers = (m: Map<number, number>) => {
      for (let d = first; d <= last; d++) if (!m.has(d)) return false;
      return true;
    };
    const remembered = this.known.get(key);
    if (remembered && covers(remembered)) return remembered;
    const { rollups } = this.events;
    const asMap = (list: UsableBuild[]) => new Map(list.map((u) => [u.day, u.builtAt]));
    let builds = asMap(await rollups.usable(scope.site, scope.registration));
    if (!covers(builds)) {
      const missing: number[] = [];
      for (let d = first; d <= last; d++) if (!builds.has(d)) missing.push(d);
      await rollups.build(scope.site, scope.registration, missing);
      builds = asMap(await rollups.usable(scope.site, scope.registration));
    }
    this.known.set(key, builds);
    return builds;
  }

  override async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    const rows = await this.rolled(scope, (sql, days) => clickhouseRolledBreakdown(sql, this.events.rollups.tables, scope, dim, days, limit));
    if (!rows) return super.breakdown(scope, dim, limit);
    return rows.map(dim === 'events' ? eventBreakdownRow : breakdownRow).sort(byValueThenName);
  }

  override async breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    const rows = await this.rolled(scope, (sql, days) => clickhouseRolledTechLists(sql, this.events.rollups.tables, scope, dims, days));
    return rows ? techListRows(dims, limit, rows) : super.breakdowns(scope, dims, limit);
  }

  override async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const rows = await this.rolled(scope, (sql, days) => clickhouseRolledEventTotals(sql, this.events.rollups.tables, scope, days));
    if (!rows) return super.eventTotals(scope);
    return eventTotalsOf([{ count: rows[0]?.value, visitors: rows[0]?.visitors }]);
  }
}
