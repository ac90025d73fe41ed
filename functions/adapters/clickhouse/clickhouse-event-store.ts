/**
 * Event store on ClickHouse. Each batch is one INSERT, append-only: flags are
 * decided when reports read (functions/reports/sql/dialects/clickhouse.ts),
 * so no write reads or rewrites the day's rows. A redelivery adds nothing:
 * the batch's identities are looked up by (site, ts) — the table's sort key,
 * so only the granules of those instants are read — and stored ones are left
 * out (a batch of several look-ups first asks whether its span holds any row
 * at all: a first import of a month needs none); writes of one instance run one after another, and the
 * ReplacingMergeTree folds what two instances might race to store twice.
 * Once its rows are in, a batch marks the days it touches stale for the
 * daily rollups (rollups.ts): one more small INSERT.
 */
import { eventKey, uniqueEvents, type EventRow, type EventStore } from '#ports/event-store.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { ClickHouseRollups } from './rollups.ts';
import { EVENTS_TABLE, ident, migrate, storedRow } from './schema.ts';

/** Rows per redelivery look-up: ids of up to 128 characters keep its URL under a server's 1 MiB. */
const LOOKUP_ROWS = 2_000;

export class ClickHouseEventStore implements EventStore {
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The daily rollups the reports read; every batch marks the days it touches stale. */
  readonly rollups: ClickHouseRollups;

  private constructor(
    readonly executor: ClickHouseExecutor,
    readonly database: string,
  ) {
    this.rollups = new ClickHouseRollups(executor, this.table, database);
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
    // After the rows, and for a redelivery too: its first delivery may have died before marking.
    await this.rollups.markStale(rows);
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
    let from = Infinity;
    let to = -Infinity;
    for (const r of rows) {
      if (r.ts < from) from = r.ts;
      if (r.ts > to) to = r.ts;
    }
    const found = await this.executor.query(`SELECT 1 AS found FROM ${this.table} WHERE site IN {sites:Array(String)} AND ts BETWEEN {from:Int64} AND {to:Int64} LIMIT 1`, {
      sites: [...new Set(rows.map((r) => r.site))],
      from: Math.trunc(from),
      to: Math.trunc(to),
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
