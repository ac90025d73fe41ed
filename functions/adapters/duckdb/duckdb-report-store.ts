/**
 * Report aggregates over the DuckDB `events` view: the report queries'
 * DuckDB dialect (functions/reports/sql), run on connections of the injected
 * read pool. With the store's daily rollups (rollups.ts), a report's rolled
 * statement reads the sealed days reports/plan.ts names from them and only
 * the rest of the range from the rows.
 */
import type { FilterClause } from '#domain/reports/filter.ts';
import type { Logger } from '#ports/logger.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { daysToBuildFor, lackingDays, planRollups, rolledDays, sealedDays, type RollupPlan, type RollupPolicy } from '#reports/plan.ts';
import { dayRuns } from '#domain/rows/days.ts';
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import type { Report } from '#reports/sql/report.ts';
import { listValue } from '@duckdb/node-api';
import { DuckDbSql } from '#reports/sql/dialects/duckdb.ts';
import { QUIET_LOG, SqlReportStore } from '#reports/sql/store.ts';
import type { ReadPool } from './read-pool.ts';
import type { DuckDbSubject } from './rollups.ts';

/** Builds each statement in a fresh context, so its parameters are its own. */
export class DuckDbQueryRunner implements QueryRunner {
  readonly dialect = 'duckdb';

  constructor(private readonly pool: ReadPool) {}

  run<A extends unknown[]>(query: Query<A, never>, ...args: A): Promise<ResultRow[]> {
    const build = query.duckdb;
    if (!build) throw new Error('a query without a DuckDB statement');
    return this.runDuckDb((sql) => build(sql, ...args));
  }

  /** A DuckDB-only statement (the rollup reads). */
  runDuckDb(build: (sql: DuckDbSql) => string): Promise<ResultRow[]> {
    const sql = new DuckDbSql(listValue);
    const text = build(sql);
    return this.pool.query<ResultRow>(text, sql.params);
  }
}

/** What builds the rollups a read needs and knows which are built: the event store, between its batches. `filters` name the variant (plan.ts rollupVariant). */
export interface RollupBuilder {
  ensureRollups(site: string, registration: string, first: number, last: number, filters?: readonly FilterClause[], subject?: DuckDbSubject): Promise<void>;
  builtRollupDays(site: string, registration: string, first: number, last: number, filters?: readonly FilterClause[], variant?: string): Promise<number[]>;
}

/**
 * DuckDB's rollups (rollups.ts): yesterday and today are open, since a batch of today forgets
 * yesterday's; labels and slots answer whole days of the scope's variant, and other filters read
 * the rows; stored pages keep their ts, so they answer the days a range only cuts into too.
 */
export const DUCKDB_ROLLUPS: RollupPolicy = { openDays: { labels: 2, pages: 2 }, cutDays: (need) => need === 'pages', otherFilters: 'rows' };

/** Days a warm-up builds per turn of the writer, so batches land between its parts. */
const WARM_DAYS = 31;

/** A read the store makes three times at most: each race with a batch that removed a named rollup costs one. */
const ATTEMPTS = 3;

export class DuckDbReportStore extends SqlReportStore {
  private readonly duckdb: DuckDbQueryRunner;

  /**
   * Without `rollups`, every report reads the rows (the tests compare both ways). `now` decides
   * which days are sealed; `log` hears of builds that failed.
   */
  constructor(
    pool: ReadPool,
    private readonly rollups: RollupBuilder | null = null,
    private readonly now: () => number = Date.now,
    private readonly log: Logger = QUIET_LOG,
  ) {
    const runner = new DuckDbQueryRunner(pool);
    super(runner);
    this.duckdb = runner;
  }

  /**
   * Executes the plan of a report's rolled read: its statement over the rollups of the days the
   * plan lets them answer (building the missing ones first) and the rows of the rest; null when
   * the rows answer alone. Building takes the writer's turn, so it is asked for only when a whole
   * day lacks its rollup (plan.ts daysToBuild). A batch that removed a rollup between the look and
   * the read shows in `still_built`: the read runs again, and after three such races the rows answer.
   */
  protected override async fromRollups<A extends unknown[], R>(report: Report<A, R>, args: A): Promise<R | null> {
    const form = report.rolled?.duckdb;
    const rollups = this.rollups;
    if (!form || !rollups) return null;
    const read = form.read(...args);
    const plan = planRollups(read, form.need, DUCKDB_ROLLUPS, this.now());
    if (!plan) return null;
    const subject = form.subject?.(...args);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const named = rolledDays(plan.need, await this.builtDays(rollups, plan, subject), read, plan.variant);
      const rows = await this.duckdb.runDuckDb((sql) => form.statement(sql, { first: plan.first, last: plan.last, built: named }, ...args));
      if (Number(rows[0]?.still_built) === named.length) return form.answer(rows, ...args);
    }
    return null;
  }

  /**
   * Builds the site's own rollups of the sealed whole days of [from, to) that lack them (all three
   * kinds: labels, slots and pages are built together), a month per turn of the writer.
   */
  override async warmRollups(site: SiteRef, from: number, to: number): Promise<number> {
    const rollups = this.rollups;
    const days = rollups && sealedDays(from, to, this.now(), DUCKDB_ROLLUPS.openDays.labels);
    if (!days) return 0;
    const built = await rollups.builtRollupDays(site.site, site.registration, days.first, days.last);
    const lacking = lackingDays(days, built);
    for (const [first, last] of dayRuns(lacking, WARM_DAYS)) await rollups.ensureRollups(site.site, site.registration, first, last);
    return lacking.length;
  }

  /** The plan's days with a rollup (of its variant: a report's own `subject`'s when it has one), after building the missing ones where the plan asks for it. */
  private async builtDays(rollups: RollupBuilder, plan: RollupPlan, subject: DuckDbSubject | undefined): Promise<number[]> {
    const { site, registration } = plan.site;
    const builtNow = () => rollups.builtRollupDays(site, registration, plan.first, plan.last, plan.filters, plan.variant);
    const built = await builtNow();
    if (daysToBuildFor(plan, built).length === 0) return built;
    try {
      await rollups.ensureRollups(site, registration, plan.first, plan.last, plan.filters, subject);
    } catch (e) {
      // A build that fails costs speed, not the answer: the days it lacks are read from rows.
      this.log.warn('duckdb rollup build failed: its days are read from rows', { message: (e as Error).message });
    }
    return builtNow();
  }
}
