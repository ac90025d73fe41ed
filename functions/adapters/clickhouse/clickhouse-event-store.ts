/**
 * Event store on ClickHouse. Each batch is one INSERT, append-only: flags are
 * decided when reports read (functions/reports/sql/dialects/clickhouse.ts),
 * so no write rewrites stored rows. Once its rows are in, a batch lists the
 * copies among the rows of its identities (LISTED_COPIES), so reads of the
 * rows stored since the list began need no copy window. A redelivery adds nothing:
 * the batch's identities are looked up by (site, ts) — the table's sort key,
 * so only the granules of those instants are read — and stored ones are left
 * out (a batch of several look-ups first asks whether its span holds any row
 * at all: a first import of a month needs none); writes of one instance run one after another, and the
 * ReplacingMergeTree folds what two instances might race to store twice.
 * Once its rows are in, a batch marks the days it touches stale for the
 * daily rollups (rollups.ts): one more small INSERT.
 */
import { eventKey, uniqueEvents, type EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import { copiesAmong, lessListedCopies, OF_ITS_PAGE, pageTsOver, type Listing } from '#domain/rows/flags/clickhouse-sql.ts';
import { APPEND_WINDOW_MS, COPY_WINDOW_MS } from '#domain/rows/flags/flag-index.ts';
import type { Logger } from '#ports/logger.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { ClickHouseRollups } from './rollups.ts';
import { EVENTS_TABLE, ident, LISTED_APPENDS, LISTED_APPENDS_SINCE, LISTED_COPIES, LISTED_SINCE, migrate, storedRow } from './schema.ts';

/** Rows per redelivery look-up: ids of up to 128 characters keep its URL under a server's 1 MiB. */
const LOOKUP_ROWS = 2_000;

/** The rows a list statement reads: those in [from, to]. */
const LISTED_RANGE = 'ts >= {from:Int64} AND ts <= {to:Int64}';

/** The earliest and latest ts of some rows, whole milliseconds. */
function span(rows: readonly EventRow[]): [number, number] {
  let from = Infinity;
  let to = -Infinity;
  for (const r of rows) {
    if (r.ts < from) from = r.ts;
    if (r.ts > to) to = r.ts;
  }
  return [Math.trunc(from), Math.trunc(to)];
}

/**
 * What a batch's lists read first: the rows of its sites (`sites`) within its span (`within`),
 * and the parameters both name.
 */
function batchScope(rows: readonly EventRow[]) {
  const [first, last] = span(rows);
  return {
    sites: 'site IN {sites:Array(String)} AND registration IN {registrations:Array(String)}',
    within: 'ts >= {first:Int64} AND ts <= {last:Int64}',
    params: { sites: [...new Set(rows.map((r) => r.site))], registrations: [...new Set(rows.map((r) => r.registration))], first, last },
  };
}

export class ClickHouseEventStore implements EventStore {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private since?: Promise<{ copies: number; appends: number }>;
  /** The daily rollups the reports read; every batch marks the days it touches stale. */
  readonly rollups: ClickHouseRollups;

  private constructor(
    readonly executor: ClickHouseExecutor,
    readonly database: string,
    /** Where lists that cannot be read are reported. */
    private readonly log: Logger,
  ) {
    this.rollups = new ClickHouseRollups(executor, this.table, database, () => this.listing());
  }

  /** The database's events table, quoted. */
  get table(): string {
    return `${ident(this.database)}.${EVENTS_TABLE}`;
  }

  /** Applies the migrations, then stores into `database`. */
  static async open(executor: ClickHouseExecutor, database: string, log: Logger): Promise<ClickHouseEventStore> {
    const store = ClickHouseEventStore.attach(executor, database, log);
    await migrate(executor, database);
    return store;
  }

  /** The store over a database another instance has migrated: no DDL, so a reader needs no rights to create anything. */
  static attach(executor: ClickHouseExecutor, database: string, log: Logger): ClickHouseEventStore {
    // Unquoted names reach the insert target: only plain identifiers are accepted.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new RangeError(`invalid ClickHouse database name: ${database}`);
    return new ClickHouseEventStore(executor, database, log);
  }

  /**
   * The writer's lists (of copies, of appends with their pages) and from when each holds them all,
   * read once (they never change after the migrations that made them). Where they cannot be read
   * (a database of an older version, a failed request), no row is taken as listed, so reads decide
   * copies and pages through windows, and the next read asks again.
   */
  async listing(): Promise<Listing> {
    const since = (table: string) => `(SELECT if(count() = 0, NULL, max(since)) FROM ${ident(this.database)}.${table})`;
    const read = (this.since ??= this.executor
      .query<{ copies: number | null; appends: number | null }>(`SELECT ${since(LISTED_SINCE)} AS copies, ${since(LISTED_APPENDS_SINCE)} AS appends`)
      .then(([r]) => ({ copies: r?.copies == null ? Infinity : Number(r.copies), appends: r?.appends == null ? Infinity : Number(r.appends) })));
    const tables = { copies: `${ident(this.database)}.${LISTED_COPIES}`, appends: `${ident(this.database)}.${LISTED_APPENDS}` };
    try {
      const { copies, appends } = await read;
      return { ...tables, since: copies, appendsSince: appends };
    } catch (e) {
      if (this.since === read) this.since = undefined;
      this.log.warn('clickhouse: no lists of copies and appends, reads decide them through windows', { message: (e as Error).message });
      return { ...tables, since: Infinity, appendsSince: Infinity };
    }
  }

  saveEvents(rows: readonly EventRow[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const run = this.tail.then(() => this.write(uniqueEvents(rows)));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async write(rows: EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    const stored = await this.storedKeys(rows);
    const fresh = stored.size === 0 ? rows : rows.filter((r) => !stored.has(eventKey(r)));
    if (fresh.length > 0) await this.executor.insert(`${this.database}.${EVENTS_TABLE}`, fresh.map(storedRow));
    // After the rows, and for a redelivery too: its first delivery may have died before listing or marking.
    // Listed before marking: a build the mark prompts reads the rows less the listed copies.
    await this.listCopies(rows);
    // After the copies: an append's page is its latest canonical one.
    await this.listAppends(rows);
    await this.rollups.markStale(rows);
  }

  /**
   * Lists the copies among the stored rows of the batch's identities within a copy window of it,
   * as the dialect's window decides them (the rows of one identity in ts order: a row at most
   * COPY_WINDOW_MS after the one before is a copy; one repeating its ts, `exact`). Run after the
   * rows are stored, so of two instances storing rows of one identity at once, the later to list
   * sees both. One statement whatever the batch's size: its identities are those of every row of
   * its sites within its span (its own and any other's there, which lists no more than true copies).
   */
  private async listCopies(rows: readonly EventRow[]): Promise<void> {
    const { sites, within, params } = batchScope(rows);
    await this.listCopiesWhere(`${sites} AND id IN (SELECT id FROM ${this.table} WHERE ${sites} AND ${within})`, params.first - COPY_WINDOW_MS, params.last + COPY_WINDOW_MS, params);
  }

  /**
   * Lists the copies among every site's rows in [from, to], then the appends of its pages, then
   * marks their days stale, as a batch does after its rows: for rows stored by SQL (a bulk load),
   * not through saveEvents.
   */
  async listStoredIn(from: number, to: number): Promise<void> {
    await this.listCopiesWhere('true', from, to, {});
    await this.listAppendsWhere('true', 'true', from, to, {});
    await this.rollups.markStaleIn(from, to);
  }

  /**
   * Lists each canonical append of the batch's pages and of its appends' pages with its page, as
   * the reads' window finds it (reports/sql/engaged-pages.ts): the pages and appends of those ids
   * within an append window either side of the batch, less the listed copies. Run after the
   * copies are listed, so of two instances storing a page and its append at once, the later to
   * list sees both. One statement: the ids are those of every page and append of its sites
   * within its span, found by a subquery, as the copies' are.
   */
  private async listAppends(rows: readonly EventRow[]): Promise<void> {
    const { sites, within, params } = batchScope(rows);
    const ids = `(SELECT if(kind = 'append', assumeNotNull(original_id), id) FROM ${this.table}
      WHERE ${sites} AND ${within} AND (kind = 'pageview' OR (kind = 'append' AND isNotNull(original_id))))`;
    await this.listAppendsWhere(`${sites} AND id IN ${ids}`, `${sites} AND original_id IN ${ids}`, params.first - APPEND_WINDOW_MS, params.last + APPEND_WINDOW_MS, params);
  }

  private async listAppendsWhere(pagesWhere: string, appendsWhere: string, from: number, to: number, params: Record<string, unknown>): Promise<void> {
    // Reads take the list only for pages from when it began (Listing.appendsSince), which comes after the copies' list began.
    const copies = `${ident(this.database)}.${LISTED_COPIES}`;
    const pages = lessListedCopies(this.table, copies, ['site', 'registration', 'id', 'ts', 'duration', 'scrolled'], `kind = 'pageview' AND ${LISTED_RANGE}`, ` AND NOT bot AND ${pagesWhere}`);
    const appends = lessListedCopies(this.table, copies, ['site', 'registration', 'id', 'ts', 'original_id', 'duration', 'scrolled'], `kind = 'append' AND ${LISTED_RANGE}`, ` AND ${appendsWhere}`);
    await this.executor.command(
      `INSERT INTO ${ident(this.database)}.${LISTED_APPENDS} (site, registration, page_id, page_ts, id, ts, duration, scrolled)
       SELECT site, registration, key, assumeNotNull(page_ts), id, ts, duration, scrolled FROM (
         SELECT *, ${pageTsOver(['site', 'registration', 'key'])} AS page_ts FROM (
           SELECT site, registration, id AS key, id, ts, toUInt8(1) AS is_page, duration, scrolled FROM ${pages} AS p
           UNION ALL
           SELECT site, registration, assumeNotNull(original_id), id, ts, toUInt8(0), duration, scrolled FROM ${appends} AS a
         ) AS u
       ) AS w
       WHERE is_page = 0 AND ${OF_ITS_PAGE}`,
      { ...params, from, to },
    );
  }

  private async listCopiesWhere(where: string, from: number, to: number, params: Record<string, unknown>): Promise<void> {
    const rows = `(SELECT site, registration, kind, id, ts FROM ${this.table} WHERE ${where} AND ${LISTED_RANGE})`;
    await this.executor.command(
      `INSERT INTO ${ident(this.database)}.${LISTED_COPIES} (site, registration, kind, id, ts, exact)
       SELECT * FROM ${copiesAmong(rows, ['site', 'registration', 'kind', 'id'])} AS c`,
      { ...params, from, to },
    );
  }

  /**
   * Removes the rows of `ref` in [from, to) (whole UTC days) and returns how many were stored
   * (ports/site-data.ts), synchronously (mutations_sync: a report straight after sees none):
   * the rows, their entries in the writer's lists and the rollups of their days. The lists are
   * made again for the rows within a window after the range, whose copies and pages may have
   * been removed rows, so reads equal those of a store that never held them.
   */
  removeRange(ref: SiteRef, from: number, to: number): Promise<number> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const run = this.tail.then(() => this.remove(ref, from, to));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async remove(ref: SiteRef, from: number, to: number): Promise<number> {
    const site = 'site = {site:String} AND registration = {registration:String}';
    const params = { site: ref.site, registration: ref.registration, from, to, copiesTo: to + COPY_WINDOW_MS, appendsTo: to + 2 * APPEND_WINDOW_MS };
    const [count] = await this.executor.query<{ n: number }>(`SELECT count() AS n FROM ${this.table} FINAL WHERE ${site} AND ts >= {from:Int64} AND ts < {to:Int64}`, params);
    const removed = Number(count?.n ?? 0);
    if (removed === 0) return 0;
    const sync = 'SETTINGS mutations_sync = 2';
    await this.executor.command(`ALTER TABLE ${this.table} DELETE WHERE ${site} AND ts >= {from:Int64} AND ts < {to:Int64} ${sync}`, params);
    await this.executor.command(`ALTER TABLE ${ident(this.database)}.${LISTED_COPIES} DELETE WHERE ${site} AND ts >= {from:Int64} AND ts <= {copiesTo:Int64} ${sync}`, params);
    await this.executor.command(
      `ALTER TABLE ${ident(this.database)}.${LISTED_APPENDS} DELETE WHERE ${site} AND ((page_ts >= {from:Int64} AND page_ts < {to:Int64}) OR (ts >= {from:Int64} AND ts <= {appendsTo:Int64})) ${sync}`,
      params,
    );
    const scope = { sites: [ref.site], registrations: [ref.registration] };
    const sites = 'site IN {sites:Array(String)} AND registration IN {registrations:Array(String)}';
    await this.listCopiesWhere(sites, to, params.copiesTo, scope);
    await this.listAppendsWhere(sites, sites, to, params.appendsTo, scope);
    await this.rollups.removeDays(ref.site, ref.registration, Math.floor(from / DAY_MS), Math.floor(to / DAY_MS) - 1);
    return removed;
  }

  /**
   * The identities of `rows` already stored, looked up LOOKUP_ROWS at a time: the values travel
   * as query parameters in the request's URL, which a server takes up to 1 MiB (http_max_uri_size).
   */
  private async storedKeys(rows: readonly EventRow[]): Promise<Set<string>> {
    const stored = new Set<string>();
    if (rows.length > LOOKUP_ROWS && !(await this.anyStoredInSpan(rows))) return stored;
    for (let i = 0; i < rows.length; i += LOOKUP_ROWS) {
      const part = rows.slice(i, i + LOOKUP_ROWS);
      const found = await this.executor.query<{ site: string; registration: string; id: string; ts: number }>(
        `SELECT site, registration, id, ts FROM ${this.table}
         WHERE site IN {sites:Array(String)} AND ts IN {times:Array(Int64)} AND id IN {ids:Array(String)}`,
        {
          sites: [...new Set(part.map((r) => r.site))],
          times: [...new Set(part.map((r) => Math.trunc(r.ts)))],
          ids: [...new Set(part.map((r) => r.id))],
        },
      );
      for (const r of found) stored.add(eventKey({ site: r.site, registration: r.registration, id: r.id, ts: Number(r.ts) }));
    }
    return stored;
  }

  /**
   * Whether any row of the batch's sites lies within its time span: a batch
   * that would take several look-ups (an import's month, a backlog) asks
   * this once first, and into an empty span (a first import) needs none.
   */
  private async anyStoredInSpan(rows: readonly EventRow[]): Promise<boolean> {
    const [from, to] = span(rows);
    const found = await this.executor.query(`SELECT 1 AS found FROM ${this.table} WHERE site IN {sites:Array(String)} AND ts BETWEEN {from:Int64} AND {to:Int64} LIMIT 1`, {
      sites: [...new Set(rows.map((r) => r.site))],
      from,
      to,
    });
    return found.length > 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    await this.executor.close();
  }
}
