/**
 * Report aggregates over the DuckDB `events` view: the report queries'
 * DuckDB dialect (functions/reports/sql), run on connections of the injected
 * read pool. With the store's daily rollups (rollups.ts), unfiltered
 * breakdowns, tech lists and event totals read the sealed days from them and
 * only the partial days at the ends from the rows.
 */
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, LabelDim, ReportScope } from '#ports/report-store.ts';
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import { DuckDbSql } from '#reports/sql/dialects/duckdb.ts';
import { breakdownRow } from '#reports/sql/breakdown.ts';
import { eventBreakdownRow } from '#reports/sql/event-breakdown.ts';
import { eventTotalsOf } from '#reports/sql/event-totals.ts';
import { builtDayList, rolledBreakdown, rolledEventTotals, type SealedDays } from '#reports/sql/rolled.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import type { ReadPool } from './read-pool.ts';
import { sealedDays } from './rollups.ts';

/** Builds each statement in a fresh context, so its parameters are its own. */
export class DuckDbQueryRunner implements QueryRunner {
  constructor(private readonly pool: ReadPool) {}

  run<A extends unknown[]>(query: Query<A>, ...args: A): Promise<ResultRow[]> {
    return this.runDuckDb((sql) => query.duckdb(sql, ...args));
  }

  /** A DuckDB-only statement (the rollup reads). */
  runDuckDb(build: (sql: DuckDbSql) => string): Promise<ResultRow[]> {
    const sql = new DuckDbSql();
    const text = build(sql);
    return this.pool.query<ResultRow>(text, sql.params);
  }
}

/** What builds the rollups a read needs: the event store, between its batches. */
export interface RollupBuilder {
  ensureRollups(site: string, registration: string, first: number, last: number): Promise<void>;
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
   * Runs `read` over the rollups of the sealed days of an unfiltered scope (building the missing ones
   * first) and the rows of the rest; null when the rows answer alone. Building takes the writer's
   * turn, so it is asked for only when a day lacks its rollup. A batch that removed a rollup between
   * the look and the read shows in `still_built`: the read runs again, and after three such races
   * the rows answer.
   */
  /** What builds the rollups when they can answer the scope: none with a filter (a rollup keeps no row's other labels). */
  private rollupsFor(scope: ReportScope): RollupBuilder | null {
    return scope.filters.length === 0 ? this.rollups : null;
  }

  private async rolled(scope: ReportScope, read: (days: SealedDays) => Promise<ResultRow[]>): Promise<ResultRow[] | null> {
    const rollups = this.rollupsFor(scope);
    if (!rollups) return null;
    const range = sealedDays(scope.from, scope.to, this.now());
    if (!range) return null;
    const builtNow = async () => (await this.duckdb.runDuckDb((sql) => builtDayList(sql, scope, range.first, range.last))).map((r) => Number(r.day));
    for (let attempt = 0; attempt < 3; attempt++) {
      let built = await builtNow();
      if (built.length < range.last - range.first + 1) {
        await rollups.ensureRollups(scope.site, scope.registration, range.first, range.last);
        built = await builtNow();
      }
      const rows = await read({ ...range, built });
      if (Number(rows[0]?.still_built) === built.length) return rows;
    }
    return null;
  }

  override async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    const rows = await this.rolled(scope, (days) => this.duckdb.runDuckDb((sql) => rolledBreakdown(sql, scope, dim, days, limit)));
    if (!rows) return super.breakdown(scope, dim, limit);
    return rows.filter((r) => r.name !== null && r.name !== undefined).map(dim === 'events' ? eventBreakdownRow : breakdownRow);
  }

  override async breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    if (!this.rollupsFor(scope)) return super.breakdowns(scope, dims, limit);
    const lists = await Promise.all(dims.map((dim) => this.breakdown(scope, dim, limit)));
    return Object.fromEntries(dims.map((dim, i) => [dim, lists[i]])) as Record<D, BreakdownRow[]>;
  }

  override async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const rows = await this.rolled(scope, (days) => this.duckdb.runDuckDb((sql) => rolledEventTotals(sql, scope, days)));
    return rows ? eventTotalsOf(rows) : super.eventTotals(scope);
  }
}
