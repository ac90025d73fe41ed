/**
 * Daily rollups of the ClickHouse store: per site, registration and UTC day,
 * each breakdown's labels with their canonical pageviews (or events) and
 * distinct visitors, the day's event totals, each engaged page with its
 * appends summed in, and the day's copies (so its rows can be read without
 * the copy window, which reads the day before too). Visitor hashes never repeat
 * across UTC days, so a range of whole days is the sum of its days; the
 * report store adds the rows of the partial days at its ends
 * (reports/sql/dialects/clickhouse-rollups.ts).
 *
 * A day's rollup is a cache of a pure function of its rows (copies decided
 * as the dialect reads them), kept append-only as the table is: a build
 * writes its labels and then its mark, stamped with the server's clock
 * taken before it read the rows; every batch, once its rows are stored,
 * marks stale the days it touches and the day after each (whose copies it
 * may change). A build is usable while no stale mark
 * of its day is as new as it: its rows were read after every batch marked
 * before it had been stored, and a batch stored after its read marks the
 * day after it. A batch that dies between its rows and its mark is
 * redelivered, and marks then.
 *
 * Labels and slots are also built per variant: the rows one `dim:value`
 * filter clause keeps (reports/plan.ts rollupVariant), the first time
 * a report under that clause needs a day, with builds of their own and the
 * same stale marks. Pages and copies are built for the site's own rows only
 * (stored pages keep the columns filters compare).
 */
import { DAY_MS } from '#domain/rows/days.ts';
import { BREAKDOWN_COLUMNS } from '#domain/reports/query.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { SUBJECT_DIM, UNFILTERED, variantOf } from '#reports/plan.ts';
import type { SubjectRows } from '#reports/plan.ts';
import { dayRuns, touchedDays } from '#domain/rows/days.ts';
import { SLOT_MS } from '#reports/sql/sealed-days.ts';
import { copiesAmong, type Listing } from '#domain/rows/flags/clickhouse-sql.ts';
import { ClickHouseSql } from '#reports/sql/dialects/clickhouse.ts';
import { labelTuples } from '#reports/sql/dialects/clickhouse-rollups.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { FILTERED_COLUMNS, type FilterClause } from '#domain/reports/filter.ts';
import { filterColumns, filterSql, ROLLED_DIMS, type PageviewDim } from '#reports/sql/text.ts';
import { clickhouseEngagedPages } from '#reports/sql/engaged-pages.ts';
import { COPY_WINDOW_MS } from '#domain/rows/flags/flag-index.ts';
import { ident, ROLLUP_BUILDS, ROLLUP_COPIES, ROLLUP_LABELS, ROLLUP_PAGES, ROLLUP_SLOTS, ROLLUP_STALE, VARIANT_DAYS } from './schema.ts';

/** The day's event totals: all named events and their distinct visitors (a label of its own). */
export const EVENT_TOTALS = 'event_totals';

/**
 * Days a report reads from rows, by rollup: the labels of today only. A row changes which rows
 * of its own day and the next are copies, so a batch marks those two stale, and yesterday's
 * labels keep their build while today fills. A day's pages also change with the appends of the
 * next day (a mark there): yesterday's pages go stale with each batch of today.
 */
export const OPEN_DAYS = { labels: 1, pages: 2 } as const;
export type RollupKind = keyof typeof OPEN_DAYS;
const STALE_OFFSETS = [0, 1];

/** Days built per statement, so a first read of a long range reads a month of rows at a time. */
const BUILD_DAYS = 31;

const PAGEVIEW_DIMS = ROLLED_DIMS.filter((d): d is PageviewDim => d !== 'events');

/** The database's rollup tables, quoted. */
export interface RollupTables {
  labels: string;
  slots: string;
  pages: string;
  copies: string;
  builds: string;
  stale: string;
}

export const rollupTables = (database: string): RollupTables => ({
  labels: `${ident(database)}.${ROLLUP_LABELS}`,
  slots: `${ident(database)}.${ROLLUP_SLOTS}`,
  pages: `${ident(database)}.${ROLLUP_PAGES}`,
  copies: `${ident(database)}.${ROLLUP_COPIES}`,
  builds: `${ident(database)}.${ROLLUP_BUILDS}`,
  stale: `${ident(database)}.${ROLLUP_STALE}`,
});

/**
 * A day's newest build no mark of the day is as new as (server microseconds), whether no mark of
 * the next day is either (its pages are usable), and whether its rows can be read as stored, less
 * the copies it listed (`plain`: built since copies are listed, and no row repeats another's ts).
 */
export interface UsableBuild {
  day: number;
  builtAt: number;
  pages: boolean;
  plain: boolean;
}

/** A report's own subject, whose rows a build stores (plan.ts SubjectRows). */
export type ClickHouseSubject = SubjectRows<ClickHouseSql>;

/** What one build run reads: its site's rows in [from, to) that `filters` keep (none, or a variant's clause), stamped `builtAt` (a literal). */
interface BuildRun {
  site: string;
  registration: string;
  from: number;
  to: number;
  filters: readonly FilterClause[];
  builtAt: string;
}

/** The canonical rows of one kind a run reads, with `columns` and those its filters compare. */
const runRows = (sql: ClickHouseSql, run: BuildRun, kind: 'pageview' | 'event', columns: readonly string[]) =>
  sql.canonical(kind, [{ site: run.site, registration: run.registration }], run.from, run.to, [...new Set([...columns, ...filterColumns(run.filters)])]);

/**
 * Every pageview dimension's labels of a run's rows, one pass: each canonical human pageview
 * becomes one row per dimension (entry_pages only with the unique flag), as breakdown.ts counts them.
 */
function pageviewLabels(sql: ClickHouseSql, run: BuildRun): string {
  const rows = runRows(sql, run, 'pageview', ['visitor', 'unique', 'bot', ...new Set(PAGEVIEW_DIMS.map((d) => BREAKDOWN_COLUMNS[d]))]);
  return `
    SELECT ${sql.value(run.site)}, ${sql.value(run.registration)}, toInt32(intDiv("ts", ${DAY_MS})) AS "day", ${run.builtAt}, d.1 AS "dim", coalesce(d.2, '') AS "name",
           count() AS "value", ${sql.visitors} AS "visitors", CAST(NULL AS Nullable(Int64))
    FROM ${rows} AS e ARRAY JOIN ${labelTuples(sql, PAGEVIEW_DIMS, (dim) => `'${dim}'`)} AS d
    WHERE ${sql.notBot}${filterSql(sql, run.filters)} AND d.3
    GROUP BY "day", "dim", "name"`;
}

/** The events breakdown's labels and the event totals of a run's rows, as breakdown.ts counts them. */
function eventLabels(sql: ClickHouseSql, run: BuildRun): string {
  const rows = runRows(sql, run, 'event', ['visitor', 'event', 'bot']);
  return `
    SELECT ${sql.value(run.site)}, ${sql.value(run.registration)}, toInt32(intDiv("ts", ${DAY_MS})) AS "day", ${run.builtAt}, d.1 AS "dim", d.2 AS "name",
           count() AS "value", count(DISTINCT "visitor") AS "visitors", toNullable(max("ts"))
    FROM ${rows} AS e ARRAY JOIN [tuple('events', "event"), tuple('${EVENT_TOTALS}', '')] AS d
    WHERE ${sql.notBot}${filterSql(sql, run.filters)} AND coalesce("event", '') <> ''
    GROUP BY "day", "dim", "name"`;
}

/** A report's own subject's rows of a run's days, as labels of its variant. */
function subjectLabels(sql: ClickHouseSql, run: BuildRun, subject: ClickHouseSubject): string {
  return `
    SELECT ${sql.value(run.site)}, ${sql.value(run.registration)}, toInt32("day"), ${run.builtAt}, '${SUBJECT_DIM}', toString("name"), toUInt64("value"), toUInt64("visitors"), CAST(NULL AS Nullable(Int64))
    FROM (${subject.rows(sql, run, [[run.from, run.to]])}) AS s`;
}

/**
 * Canonical pageviews per quarter-hour slot, and each visitor hash's first and last pageview of
 * the day by the slot it fell in (the rolled counts of reports/sql/traffic.ts read them).
 *
 * One read of the rows (their copy window is the cost): pageviews are counted per day, slot and
 * visitor, each visitor's slots kept in an array, whose first and last are its first and last
 * pageview's. Pageviews without a hash form one group per day, whose unique ones count as
 * visitors of their slot and which has no first or last.
 */
function slotCounts(sql: ClickHouseSql, run: BuildRun): string {
  const rows = runRows(sql, run, 'pageview', ['visitor', 'unique', 'bot']);
  const perSlot = `SELECT toInt32(intDiv("ts", ${DAY_MS})) AS "day", toUInt16(intDiv("ts" % ${DAY_MS}, ${SLOT_MS})) AS "slot", "visitor",
      count() AS "n", countIf("visitor" IS NULL AND coalesce("unique", false)) AS "unhashed"
    FROM ${rows} AS c WHERE ${sql.notBot}${filterSql(sql, run.filters)} GROUP BY "day", "slot", "visitor"`;
  return `
    SELECT ${sql.value(run.site)}, ${sql.value(run.registration)}, "day", ${run.builtAt}, "slot", sum("pageviews"), sum("firsts"), sum("lasts"), sum("unhashed") FROM (
      SELECT "day", s.1 AS "slot", s.2 AS "pageviews", toUInt64("hashed" AND s.1 = "first") AS "firsts", toUInt64("hashed" AND s.1 = "last") AS "lasts", s.3 AS "unhashed"
      FROM (
        SELECT "day", isNotNull("visitor") AS "hashed", min("slot") AS "first", max("slot") AS "last", groupArray(tuple("slot", "n", "unhashed")) AS "slots"
        FROM (${perSlot}) AS v GROUP BY "day", "visitor"
      ) AS d ARRAY JOIN "slots" AS s
    ) AS p GROUP BY "day", "slot"`;
}

/**
 * The pageviews and events of [from, to) that are copies, as `canonical` decides them (the same
 * window, over each kind's rows), with their day. A row repeating its predecessor's ts (two
 * deliveries of one row stored before the table merged them) is `exact`: the window keeps one of
 * the two, which no list of copies can say, so its day is not read plain.
 */
function copies(sql: ClickHouseSql, site: string, registration: string, from: number, to: number, builtAt: string): string {
  const rows = sql.scan({ kinds: ['pageview', 'event'], sites: [{ site, registration }], from: from - COPY_WINDOW_MS, to }, ['kind', 'id']);
  return `
    SELECT ${sql.value(site)}, ${sql.value(registration)}, toInt32(intDiv("ts", ${DAY_MS})), ${builtAt}, "kind", "id", "ts", "exact"
    FROM ${copiesAmong(rows, ['kind', 'id'], from)} AS c`;
}

export class ClickHouseRollups {
  readonly tables: RollupTables;

  constructor(
    private readonly executor: ClickHouseExecutor,
    /** The events table, quoted. */
    private readonly events: string,
    database: string,
    /** The writer's list of copies (clickhouse-event-store.ts): the rows it covers are read less it, without the copy window. */
    private readonly listing: () => Promise<Listing>,
  ) {
    this.tables = rollupTables(database);
  }

  /** Marks stale the days a stored batch touched (called once its rows are stored). */
  async markStale(rows: readonly EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    const { sites, registrations, days } = touchedDays(rows, STALE_OFFSETS);
    await this.executor.command(
      `INSERT INTO ${this.tables.stale} (site, registration, day, at)
       SELECT t.1, t.2, t.3, toUnixTimestamp64Micro(now64(6))
       FROM (SELECT arrayJoin(arrayZip({sites:Array(String)}, {registrations:Array(String)}, {days:Array(Int32)})) AS t)`,
      { sites, registrations, days },
    );
  }

  /**
   * Marks stale, for every site, each day holding rows stored in [from, to] and the day after (as a
   * batch marks its days): for rows stored by SQL (a bulk load), not through saveEvents.
   */
  async markStaleIn(from: number, to: number): Promise<void> {
    await this.executor.command(
      `INSERT INTO ${this.tables.stale} (site, registration, day, at)
       SELECT site, registration, toInt32(day + offset), toUnixTimestamp64Micro(now64(6))
       FROM (SELECT DISTINCT site, registration, intDiv(ts, ${DAY_MS}) AS day FROM ${this.events} WHERE ts >= {from:Int64} AND ts <= {to:Int64}) AS d
       ARRAY JOIN {offsets:Array(Int32)} AS offset`,
      { from, to, offsets: STALE_OFFSETS },
    );
  }

  /**
   * A removal of a site's rows of days first..last (clickhouse-site-data.ts): every rollup table's
   * rows of those days go, synchronously, and the two days after are marked stale (a removed row
   * changes which rows of the next day are copies, and that day's pages, as a stored one does).
   */
  async removeDays(site: string, registration: string, first: number, last: number): Promise<void> {
    const params = { site, registration, first, last };
    for (const table of Object.values(this.tables)) {
      await this.executor.command(
        `ALTER TABLE ${table} DELETE WHERE site = {site:String} AND registration = {registration:String} AND day BETWEEN {first:Int32} AND {last:Int32} SETTINGS mutations_sync = 2`,
        params,
      );
    }
    await this.executor.command(
      `INSERT INTO ${this.tables.stale} (site, registration, day, at)
       SELECT {site:String}, {registration:String}, toInt32({last:Int32} + offset), toUnixTimestamp64Micro(now64(6)) FROM system.one ARRAY JOIN [1, 2] AS offset`,
      params,
    );
  }

  /**
   * The site's days whose newest build (of the variant: '' the site's own rows) no stale mark of the
   * day is as new as, in day order; a variant's only while it is younger than VARIANT_DAYS.
   */
  async usable(site: string, registration: string, variant: string = UNFILTERED): Promise<UsableBuild[]> {
    const marks = `(SELECT day, max(at) AS at FROM ${this.tables.stale} WHERE site = {site:String} AND registration = {registration:String} GROUP BY day)`;
    const rows = await this.executor.query<{ day: number; built_at: number; pages: number; plain: number }>(
      `SELECT b.day AS day, b.built_at AS built_at, (n.at IS NULL OR n.at < b.built_at) AS pages, b.plain AS plain
       FROM (SELECT day, max(built_at) AS built_at, argMax(plain, ${this.tables.builds}.built_at) AS plain FROM ${this.tables.builds}
             WHERE site = {site:String} AND registration = {registration:String} AND variant = {variant:String}
               AND (variant = '' OR ${this.tables.builds}.built_at > toUnixTimestamp64Micro(now64(6)) - {kept:Int64})
             GROUP BY day) AS b
       LEFT JOIN ${marks} AS s ON s.day = b.day
       LEFT JOIN ${marks} AS n ON n.day = b.day + 1
       WHERE s.at IS NULL OR s.at < b.built_at
       ORDER BY day
       SETTINGS join_use_nulls = 1`,
      { site, registration, variant, kept: VARIANT_DAYS * DAY_MS * 1000 },
    );
    return rows.map((r) => ({ day: Number(r.day), builtAt: Number(r.built_at), pages: Boolean(Number(r.pages)), plain: Boolean(Number(r.plain)) }));
  }

  /** Builds the given days (UTC day numbers, ascending) of the variant of `filters`, or of a report's own `subject`, a run of consecutive days per statement. */
  async build(site: string, registration: string, days: readonly number[], filters: readonly FilterClause[] = [], subject?: ClickHouseSubject): Promise<void> {
    for (const [first, last] of dayRuns(days, BUILD_DAYS)) await this.buildRun(site, registration, first, last, filters, subject);
  }

  private async buildRun(site: string, registration: string, first: number, last: number, filters: readonly FilterClause[], subject?: ClickHouseSubject): Promise<void> {
    const variant = subject?.variant ?? variantOf(filters);
    // The clock is read before the rows: a batch marked after it is one this build may have missed.
    const [clock] = await this.executor.query<{ now: number }>('SELECT toUnixTimestamp64Micro(now64(6)) AS now');
    const builtAt = Number(clock?.now);
    const [from, to] = [first * DAY_MS, (last + 1) * DAY_MS];
    const inserts: [table: string, columns: string, select: (sql: ClickHouseSql, run: BuildRun) => string][] = subject
      ? [[this.tables.labels, 'dim, name, value, visitors, last_seen', (sql, run) => subjectLabels(sql, run, subject)]]
      : [
          [this.tables.labels, 'dim, name, value, visitors, last_seen', pageviewLabels],
          [this.tables.labels, 'dim, name, value, visitors, last_seen', eventLabels],
          [this.tables.slots, 'slot, pageviews, firsts, lasts, unhashed', slotCounts],
        ];
    const listing = await this.listing();
    for (const [table, columns, select] of inserts) {
      const sql = new ClickHouseSql(this.events, listing);
      const text = select(sql, { site, registration, from, to, filters, builtAt: sql.int(builtAt) });
      // The variant is set after the select's columns: a column list names it last.
      await this.executor.command(`INSERT INTO ${table} (site, registration, day, built_at, ${columns}, variant) SELECT *, ${sql.value(variant)} FROM (${text})`, sql.params);
    }
    if (variant === UNFILTERED) await this.buildPagesAndCopies(site, registration, from, to, builtAt, listing);
    await this.executor.command(
      `INSERT INTO ${this.tables.builds} (site, registration, variant, day, built_at, plain)
       SELECT {site:String}, {registration:String}, {variant:String}, toInt32({first:Int32} + number) AS d, {builtAt:Int64},
              {listed:Bool} AND d NOT IN (SELECT day FROM ${this.tables.copies} WHERE site = {site:String} AND registration = {registration:String} AND built_at = {builtAt:Int64} AND exact)
       FROM numbers({count:UInt32})`,
      { site, registration, variant, first, builtAt, listed: variant === UNFILTERED, count: last - first + 1 },
    );
  }

  /** The site's own engaged pages and copies of [from, to), stamped `builtAt`. */
  private async buildPagesAndCopies(site: string, registration: string, from: number, to: number, builtAt: number, listing: Listing): Promise<void> {
    const sql = new ClickHouseSql(this.events, listing);
    const pages = clickhouseEngagedPages(sql, [{ site, registration }], [[from, to]], [], FILTERED_COLUMNS);
    const kept = FILTERED_COLUMNS.map(ident).join(', ');
    await this.executor.command(
      `INSERT INTO ${this.tables.pages} (site, registration, day, built_at, ts, total_duration, scroll, ${kept})
       WITH ${pages} SELECT "site", ${sql.value(registration)}, toInt32(intDiv("ts", ${DAY_MS})), ${sql.int(builtAt)}, "ts", "total_duration", "scroll", ${kept} FROM page
       SETTINGS join_use_nulls = 1`,
      sql.params,
    );
    const listed = new ClickHouseSql(this.events);
    await this.executor.command(
      `INSERT INTO ${this.tables.copies} (site, registration, day, built_at, kind, id, ts, exact) ${copies(listed, site, registration, from, to, listed.int(builtAt))}`,
      listed.params,
    );
  }
}
