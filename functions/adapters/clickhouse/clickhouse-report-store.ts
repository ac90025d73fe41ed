/**
 * Report aggregates over the ClickHouse events table: the report queries'
 * ClickHouse dialect (functions/reports/sql), run through the executor. With
 * the daily rollups (rollups.ts), one site's reads execute the plans of
 * reports/plan.ts: labels and slots of the scope's variant (its rows, or
 * those of its one `dim:value` clause) answer whole days, stored pages any
 * part of a day, and the rows of the other sealed days (under any other
 * filter, the range's cut ends) are read as stored, less the copies their
 * builds listed. The open days and the days without a usable build are read
 * less the copies the writer listed, or through the copy window where their
 * rows were stored before it listed them (reports/sql/dialects/clickhouse-rollups.ts,
 * the dialect's canonicalIn).
 */
import type { Logger } from '#ports/logger.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { buildKindOf, daysToBuildFor, planRollups, sealedDays, UNFILTERED, type RollupPlan, type RollupPolicy } from '#reports/plan.ts';
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import { ClickHouseSql } from '#reports/sql/dialects/clickhouse.ts';
import { staleBuilds, staleMarks, type RolledDays, type RolledPart } from '#reports/sql/dialects/clickhouse-rollups.ts';
import type { Report } from '#reports/sql/report.ts';
import { QUIET_LOG, SqlReportStore } from '#reports/sql/store.ts';
import type { ClickHouseEventStore } from './clickhouse-event-store.ts';
import { OPEN_DAYS, type ClickHouseSubject, type RollupKind, type UsableBuild } from './rollups.ts';
import { batchOf, groupsWithin, rowsOfBatch, type BatchRow, type Statement } from './statement-batch.ts';

/** LEFT JOINs give NULLs for missing rows, as every dialect's SQL expects (the HTTP executor sets it per session too). */
const REPORT_SETTINGS = 'join_use_nulls = 1';

/** Parameters of one request at most (characters of JSON), well within a server's 1 MiB URL. */
const BATCH_PARAMS_CHARS = 256 * 1024;

/** Sealed answers kept, the least recently used dropped first: sums per bucket or name, a few KB each. */
const SEALED_ANSWERS = 128;
/** Open answers kept, likewise, and sites whose last marks are remembered. */
const OPEN_ANSWERS = 128;
const SITES_KEPT = 1024;

interface Waiting extends Statement {
  answer(rows: ResultRow[]): void;
  fail(error: unknown): void;
}

/**
 * Builds each statement in a fresh context, so its parameters are its own. The statements asked
 * for in one turn of the event loop (a report's queries, issued side by side) go as one request
 * (statement-batch.ts); a statement asked for alone goes as itself.
 */
export class ClickHouseQueryRunner implements QueryRunner {
  private waiting: Waiting[] = [];
  private built = 0;
  /** Answers of sealed statements by their text and parameters (runSealed). */
  private readonly sealed = new Map<string, Promise<ResultRow[]>>();
  /** Shared statements of the batch being gathered (runShared). */
  private waitingShared = new Map<string, Promise<ResultRow[]>>();

  constructor(private readonly events: ClickHouseEventStore) {}

  readonly dialect = 'clickhouse';

  run<A extends unknown[]>(query: Query<A, never>, ...args: A): Promise<ResultRow[]> {
    const build = query.clickhouse;
    if (!build) throw new Error('a query without a ClickHouse statement');
    return this.runClickHouse((sql) => build(sql, ...args));
  }

  /** A ClickHouse-only statement (the rollup reads); one built as null reads nothing and answers no rows. */
  async runClickHouse(build: (sql: ClickHouseSql) => string | null): Promise<ResultRow[]> {
    // Parameter names apart from those of any statement it may be sent with.
    const sql = new ClickHouseSql(this.events.table, await this.events.listing(), `q${(this.built = (this.built + 1) % 1_000_000)}_`);
    const text = build(sql);
    if (text === null) return [];
    return new Promise((answer, fail) => {
      this.waiting.push({ text, params: sql.params, answer, fail });
      if (this.waiting.length === 1) setImmediate(() => void this.send());
    });
  }

  /**
   * A statement whose answer is a function of its text and parameters: it reads only rows no
   * later write changes (the rollups of the builds it names, and their days' rows less the copies
   * they listed; dialects/clickhouse-rollups.ts RolledPart). Its answer is kept and given again, so a
   * report over the same builds plans and runs only its open part.
   */
  runSealed(build: (sql: ClickHouseSql) => string | null): Promise<ResultRow[]> {
    return this.runKept(this.sealed, SEALED_ANSWERS, build);
  }

  /**
   * A statement whose answer reads may share while it waits to be sent (the stale marks every
   * rolled read of a report asks for): asked for again before its batch goes, it is sent once.
   */
  runShared(build: (sql: ClickHouseSql) => string | null): Promise<ResultRow[]> {
    return this.runKept(this.waitingShared, Infinity, build);
  }

  /** A statement's key: its text and parameters as built apart from any batch; null when it reads nothing. */
  async keyOf(build: (sql: ClickHouseSql) => string | null): Promise<string | null> {
    const keyed = new ClickHouseSql(this.events.table, await this.events.listing(), 'k_');
    const text = build(keyed);
    return text === null ? null : `${text}\n${JSON.stringify(keyed.params)}`;
  }

  /** A statement's answer from `kept` (by its key, the least recently used dropped past `most`), else run and kept there. */
  private async runKept(kept: Map<string, Promise<ResultRow[]>>, most: number, build: (sql: ClickHouseSql) => string | null): Promise<ResultRow[]> {
    const key = await this.keyOf(build);
    if (key === null) return [];
    const known = recall(kept, key);
    if (known) return known;
    const answer = this.runClickHouse(build);
    keep(kept, key, answer, most);
    answer.catch(() => {
      if (kept.get(key) === answer) kept.delete(key);
    });
    return answer;
  }

  private async send(): Promise<void> {
    const waiting = this.waiting;
    this.waiting = [];
    this.waitingShared = new Map();
    await Promise.all(groupsWithin(waiting, BATCH_PARAMS_CHARS).map((batch) => this.sendBatch(batch)));
  }

  private async sendBatch(batch: readonly Waiting[]): Promise<void> {
    try {
      if (batch.length === 1) {
        const [only] = batch as [Waiting];
        only.answer(await this.events.executor.query<ResultRow>(`${only.text} SETTINGS ${REPORT_SETTINGS}`, only.params));
        return;
      }
      const { text, params } = batchOf(batch, REPORT_SETTINGS);
      const answers = rowsOfBatch<ResultRow>(await this.events.executor.query<BatchRow>(text, params), batch.length);
      batch.forEach((w, i) => w.answer(answers[i] ?? []));
    } catch (e) {
      for (const w of batch) w.fail(e);
    }
  }
}

/** A kept value, now the most recently used. */
function recall<V>(kept: Map<string, V>, key: string): V | undefined {
  const value = kept.get(key);
  if (value !== undefined) {
    kept.delete(key);
    kept.set(key, value);
  }
  return value;
}

/** Keeps a value, dropping the least recently used past `most`. */
function keep<V>(kept: Map<string, V>, key: string, value: V, most: number): void {
  kept.delete(key);
  kept.set(key, value);
  if (kept.size > most) kept.delete(kept.keys().next().value as string);
}

/** A site's builds of one variant, as remembered. */
const buildsKey = (scope: SiteRef, variant: string) => `${scope.site}\u0000${scope.registration}\u0000${variant}`;

/**
 * ClickHouse's rollups (rollups.ts): today is open for labels and slots, and yesterday too for
 * pages (the next day's appends change them); every sealed day a range cuts into is named, its
 * rows read plainly with its build; under filters no variant answers, the site's own builds are
 * named, whose labels and slots then answer nothing.
 */
export const CLICKHOUSE_ROLLUPS: RollupPolicy = { openDays: OPEN_DAYS, cutDays: () => true, otherFilters: 'own' };

/** A read the store makes three times at most: each race with a batch that marked a named build stale costs one. */
const ATTEMPTS = 3;

export class ClickHouseReportStore extends SqlReportStore {
  private readonly clickhouse: ClickHouseQueryRunner;
  /**
   * Each site's usable builds of each variant as last looked up. A read names them without a look-up statement:
   * one a batch has marked stale since shows in the stale marks read with it, and the site is looked up again.
   */
  private readonly known = new Map<string, Map<number, UsableBuild>>();
  /** Rolled reads' open (or whole) answers by statement, with the site's marks they stand for (fromRollups). */
  private readonly openAnswers = new Map<string, { version: string; rows: ResultRow[] }>();
  /** Each site's stale marks as the last rolled read of it saw them. */
  private readonly siteMarks = new Map<string, string>();
  private readonly log: Logger;

  /** With `rollups` off, every report reads the rows (the tests compare both ways). `now` decides which days are sealed; `log` hears of builds that failed. */
  constructor(
    private readonly events: ClickHouseEventStore,
    private readonly options: { rollups?: boolean; now?: () => number; log?: Logger } = {},
  ) {
    const runner = new ClickHouseQueryRunner(events);
    super(runner);
    this.clickhouse = runner;
    this.log = options.log ?? QUIET_LOG;
  }

  /**
   * Executes the plan of a report's rolled read: its statement over the usable builds of the
   * plan's days (building the missing ones first) and the rows of the rest; null when the rows
   * answer alone. The statement applies the scope's filters: to the stored pages, and to the rows
   * a label or slot of its variant does not answer. The site's stale marks are read with it (one
   * statement for all the reads a report sends together): when a batch marked a named day stale
   * before the read, the site's builds are looked up again and the read runs again; after three
   * such races the rows answer.
   *
   * `split` reads are partial sums the report adds up (rolled-merge.ts): the sealed statement, kept
   * by the runner (runSealed) when there are named builds, and the open one. Otherwise one whole
   * statement.
   */
  protected override async fromRollups<A extends unknown[], R>(report: Report<A, R>, args: A): Promise<R | null> {
    const form = report.rolled?.clickhouse;
    if (!form || this.options.rollups === false) return null;
    const plan = planRollups(form.read(...args), form.need, CLICKHOUSE_ROLLUPS, (this.options.now ?? Date.now)());
    if (!plan) return null;
    const { tables } = this.events.rollups;
    const read = (sql: ClickHouseSql, days: RolledDays, part: RolledPart) => form.statement(sql, tables, days, part, ...args);
    const subject = form.subject?.(...args);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const rows = await this.readPlan(plan, read, form.split, subject);
      if (rows) return form.answer(rows, ...args);
    }
    return null;
  }

  /** One attempt at a plan's read: its rows, or null when a batch marked a named build stale before it. */
  private async readPlan(
    plan: RollupPlan,
    read: (sql: ClickHouseSql, days: RolledDays, part: RolledPart) => string | null,
    split: boolean,
    subject: ClickHouseSubject | undefined,
  ): Promise<ResultRow[] | null> {
    const kind = buildKindOf(plan.need);
    const scope = plan.site;
    const builds = await this.builds(plan, subject);
    // A day's rows read plain less the copies the site's own build listed, as remembered (a variant's read builds none of them).
    const own = plan.variant === UNFILTERED ? builds : (this.known.get(buildsKey(scope, UNFILTERED)) ?? new Map<number, UsableBuild>());
    const days = namedDays(plan, kind, builds, own);
    const open = (sql: ClickHouseSql) => read(sql, days, split ? 'open' : 'whole');
    const openKey = await this.clickhouse.keyOf(open);
    const kept = openKey === null ? undefined : recall(this.openAnswers, openKey);
    // The site's marks as a read that has finished saw them.
    const site = buildsKey(scope, UNFILTERED);
    const before = this.siteMarks.get(site);
    const [sealed, marks, fresh] = await Promise.all([
      split && days.built.length + days.plain.length > 0 ? this.clickhouse.runSealed((sql) => read(sql, days, 'sealed')) : [],
      this.clickhouse.runShared((sql) => staleMarks(sql, this.events.rollups.tables, scope)),
      kept || openKey === null ? null : this.clickhouse.runClickHouse(open),
    ]);
    const newest = new Map(marks.map((m) => [Number(m.day), Number(m.at)]));
    if (staleBuilds(days, newest, kind === 'pages') > 0) {
      this.known.delete(buildsKey(scope, plan.variant));
      this.known.delete(buildsKey(scope, UNFILTERED));
      return null;
    }
    // The site's marks as of this read: every batch marked in them stored its rows before it.
    const version = JSON.stringify([...newest].sort((a, b) => a[0] - b[0]));
    keep(this.siteMarks, site, version, SITES_KEPT);
    if (openKey === null) return sealed;
    if (fresh) {
      // Read with the marks, so kept only when a finished read saw the same: their batches' rows were stored before this read began.
      if (before === version) keep(this.openAnswers, openKey, { version, rows: fresh }, OPEN_ANSWERS);
      return [...sealed, ...fresh];
    }
    if (kept?.version === version) return [...sealed, ...kept.rows];
    // A batch marked the site since: the open part is read again, after the marks. Its answer is not kept: on a
    // site that batches keep marking, the next read then sends the open part with the marks, in one request.
    this.openAnswers.delete(openKey);
    return [...sealed, ...(await this.clickhouse.runClickHouse(open))];
  }

  /**
   * Builds the site's own rollups of the sealed whole days of [from, to) without a usable build:
   * days whose labels lack one, and days sealed for pages whose pages went stale (rollups.ts).
   */
  override async warmRollups(site: SiteRef, from: number, to: number): Promise<number> {
    const now = (this.options.now ?? Date.now)();
    const days = this.options.rollups === false ? null : sealedDays(from, to, now, OPEN_DAYS.labels);
    if (!days) return 0;
    const { rollups } = this.events;
    const usable = new Map((await rollups.usable(site.site, site.registration)).map((u) => [u.day, u]));
    const pagesSealed = Math.floor(now / DAY_MS) - OPEN_DAYS.pages;
    const lacking: number[] = [];
    for (let d = days.first; d <= days.last; d++) {
      const build = usable.get(d);
      if (!build || (d <= pagesSealed && !build.pages)) lacking.push(d);
    }
    if (lacking.length > 0) await rollups.build(site.site, site.registration, lacking);
    this.known.delete(buildsKey(site, UNFILTERED));
    return lacking.length;
  }

  /**
   * The site's usable builds of the plan's kind and variant (a report's own `subject`'s when it has
   * one): remembered, else looked up, building the days that lack one (plan.ts daysToBuild: not for
   * a read of only part of a day).
   */
  private async builds(plan: RollupPlan, subject: ClickHouseSubject | undefined): Promise<Map<number, UsableBuild>> {
    const kind = buildKindOf(plan.need);
    const { site, registration } = plan.site;
    const key = buildsKey(plan.site, plan.variant);
    const toBuild = (m: ReadonlyMap<number, UsableBuild>) => daysToBuildFor(plan, [...m].filter(([, build]) => usableFor(build, kind)).map(([day]) => day));
    const remembered = this.known.get(key);
    if (remembered && toBuild(remembered).length === 0) return remembered;
    const { rollups } = this.events;
    const lookUp = async () => new Map((await rollups.usable(site, registration, plan.variant)).map((u) => [u.day, u]));
    let builds = await lookUp();
    const missing = toBuild(builds);
    if (missing.length > 0) {
      try {
        await rollups.build(site, registration, missing, plan.filters, subject);
      } catch (e) {
        // A build that fails (a timeout, a full disk) costs speed, not the answer: those days are read from rows.
        this.log.warn('clickhouse rollup build failed: its days are read from rows', { days: missing.length, message: (e as Error).message });
      }
      builds = await lookUp();
    }
    this.known.set(key, builds);
    return builds;
  }
}

/** Whether a build answers for `kind`: pages also need no mark of the next day as new. */
const usableFor = (build: UsableBuild, kind: RollupKind) => kind === 'labels' || build.pages;

/** The days of the plan a read names: the usable builds of `kind` of its variant, and the days whose site's own build (`own`) lets their rows read plain. */
function namedDays(plan: RollupPlan, kind: RollupKind, builds: ReadonlyMap<number, UsableBuild>, own: ReadonlyMap<number, UsableBuild>): RolledDays {
  const days = { first: plan.first, last: plan.last, built: [] as number[], builtAt: [] as number[], plain: [] as number[], plainAt: [] as number[], variant: plan.variant };
  for (let d = plan.first; d <= plan.last; d++) {
    const build = builds.get(d);
    if (build && usableFor(build, kind)) {
      days.built.push(d);
      days.builtAt.push(build.builtAt);
    }
    const ownBuild = own.get(d);
    if (ownBuild?.plain && usableFor(ownBuild, kind)) {
      days.plain.push(d);
      days.plainAt.push(ownBuild.builtAt);
    }
  }
  return days;
}
