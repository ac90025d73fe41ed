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
import { COPY_WINDOW_MS } from '#domain/reports/copies.ts';
import { eventKey, uniqueEvents, type EventRow, type EventStore } from '#ports/event-store.ts';
import { copiesAmong, type Listing } from '#reports/sql/dialects/clickhouse.ts';
import { log } from '#platform/log.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { ClickHouseRollups } from './rollups.ts';
import { EVENTS_TABLE, ident, LISTED_COPIES, LISTED_SINCE, migrate, storedRow } from './schema.ts';

/** Rows per redelivery look-up: ids of up to 128 characters keep its URL under a server's 1 MiB. */
const LOOKUP_ROWS = 2_000;

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

export class ClickHouseEventStore implements EventStore {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  private since?: Promise<number>;
  /** The daily rollups the reports read; every batch marks the days it touches stale. */
  readonly rollups: ClickHouseRollups;

  private constructor(
    readonly executor: ClickHouseExecutor,
    readonly database: string,
  ) {
    this.rollups = new ClickHouseRollups(executor, this.table, database, () => this.listing());
  }

  /** The database's events table, quoted. */
  get table(): string {
    return `${ident(this.database)}.${EVENTS_TABLE}`;
  }

  /** Applies the migrations, then stores into `database`. */
  static async open(executor: ClickHouseExecutor, database: string): Promise<ClickHouseEventStore> {
    const store = ClickHouseEventStore.attach(executor, database);
    await migrate(executor, database);
    return store;
  }

  /** The store over a database another instance has migrated: no DDL, so a reader needs no rights to create anything. */
  static attach(executor: ClickHouseExecutor, database: string): ClickHouseEventStore {
    // Unquoted names reach the insert target: only plain identifiers are accepted.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new RangeError(`invalid ClickHouse database name: ${database}`);
    return new ClickHouseEventStore(executor, database);
  }

  /**
   * The writer's list of copies and from when it holds them all, read once (it never changes after
   * the migration that made it). Where it cannot be read (a database of an older version, a failed
   * request), no row is taken as listed, so reads decide copies through the window, and the next
   * read asks again.
   */
  async listing(): Promise<Listing> {
    const read = (this.since ??= this.executor
      .query<{ since: number; lists: number }>(`SELECT max(since) AS since, count() AS lists FROM ${ident(this.database)}.${LISTED_SINCE}`)
      .then(([r]) => (Number(r?.lists) > 0 ? Number(r?.since) : Infinity)));
    const copies = `${ident(this.database)}.${LISTED_COPIES}`;
    try {
      return { copies, since: await read };
    } catch (e) {
      if (this.since === read) this.since = undefined;
      log.warn('clickhouse: no list of copies, reads decide copies through the window', { message: (e as Error).message });
      return { copies, since: Infinity };
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
    const [first, last] = span(rows);
    const sites = 'site IN {sites:Array(String)} AND registration IN {registrations:Array(String)}';
    await this.listCopiesWhere(
      `${sites} AND id IN (SELECT id FROM ${this.table} WHERE ${sites} AND ts >= {first:Int64} AND ts <= {last:Int64})`,
      first - COPY_WINDOW_MS,
      last + COPY_WINDOW_MS,
      { sites: [...new Set(rows.map((r) => r.site))], registrations: [...new Set(rows.map((r) => r.registration))], first, last },
    );
  }

  /** Lists the copies among every site's rows in [from, to]: for rows stored by SQL (a bulk load), not through saveEvents. */
  listCopiesIn(from: number, to: number): Promise<void> {
    return this.listCopiesWhere('true', from, to, {});
  }

  private async listCopiesWhere(where: string, from: number, to: number, params: Record<string, unknown>): Promise<void> {
    const rows = `(SELECT site, registration, kind, id, ts FROM ${this.table} WHERE ${where} AND ts >= {from:Int64} AND ts <= {to:Int64})`;
    await this.executor.command(
      `INSERT INTO ${ident(this.database)}.${LISTED_COPIES} (site, registration, kind, id, ts, exact)
       SELECT * FROM ${copiesAmong(rows, ['site', 'registration', 'kind', 'id'])} AS c`,
      { ...params, from, to },
    );
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
