/**
 * Event store on one DuckDB file (the local / single-node runtime). Owns the `events` tables and
 * the idempotent batch writer: the flag index decides each row's flags in memory, the rows go
 * through the appender straight into the fresh table in one transaction, and what the index could
 * not decide alone is recomputed in SQL for just those identities. Compaction runs beside the
 * writer; a small read helper serves report queries.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DuckDBInstance, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { appendChunks, type StageColumn } from './chunk-stager.ts';
import { COLUMNS, FRESH_TABLE, MAIN_TABLE, STORED_DEFS } from './schema.ts';
import { flagRuleStatements, RECOMPUTED_FIRSTS, TARGETS_DEFS, TARGETS_TABLE } from './flag-rules-sql.ts';
import { duckDbDayLoader } from './flag-index-loader.ts';
import { migrate, type RegistrationsOf } from './migrations.ts';
import { compactOn, Compactor, COMPACT_AT_ROWS } from './compactor.ts';
import { DuckDbRollups, type DuckDbSubject } from './rollups.ts';
import { inTransaction } from './transaction.ts';
import { repairTargets, rowOf } from './stored-rows.ts';
import { removeEventRows, staleDays } from './range-removal.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { DuckDbReadPool, type QueryParams } from './read-pool.ts';
import { uniqueEvents, eventKey, type EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { FlagIndex, type Decisions } from '#domain/rows/flags/flag-index.ts';
import { prepareBatch, visitorDayKey, type PreparedBatch } from '#domain/rows/flags/prepared-batch.ts';
import { keyInto } from '#domain/rows/flags/keys.ts';
import type { Logger } from '#ports/logger.ts';
import { NO_REGISTRATION } from '#domain/registration.ts';
import { Serial } from '#domain/serial.ts';

export { FRESH_TABLE, MAIN_TABLE } from './schema.ts';
export { SCHEMA_VERSION, type RegistrationsOf } from './migrations.ts';
export { COMPACT_AT_ROWS } from './compactor.ts';
export type { QueryParams } from './read-pool.ts';

/** Memory the flag index may take by default (EVENT_INDEX_MB): about 30 bytes an id and 23 a visitor-day, so some 25 M rows a day. */
export const DEFAULT_INDEX_BYTES = 1024 * 2 ** 20;

/** Quiet time after the last batch before the WAL is checkpointed into the database file. */
const CHECKPOINT_IDLE_MS = 2_000;
/** Rows of a bulk selection handed to the writer at once. */
const SELECT_CHUNK = 100_000;

/** The appender's columns after the event fields: keys and flags, from the prepared batch and the decisions. */
function storedColumns(b: PreparedBatch, d: Decisions): StageColumn<EventRow>[] {
  const none = () => null;
  return [
    ...COLUMNS,
    { kind: 'key', value: none, keys: b.id, present: new Uint8Array(b.rows.length).fill(1) },
    { kind: 'key', value: none, keys: b.visitor, present: b.hasVisitor },
    { kind: 'key', value: none, keys: b.parent, present: b.hasParent },
    { kind: 'bool', value: (_, i) => d.replay[i] === 1 },
    { kind: 'bool', value: (_, i) => d.first[i] === 1 },
    { kind: 'bigint', value: (_, i) => (Number.isNaN(d.parentTs[i]) ? null : d.parentTs[i]) },
  ];
}

/** A stored key as the lane pair the index uses. */
function lanesOf(key: bigint, out: Uint32Array): void {
  out[0] = Number(key & 0xffffffffn);
  out[1] = Number(key >> 32n);
}

export class DuckDbEventStore implements EventStore {
  /** Writes run one after another on the writer connection. */
  private readonly writes = new Serial();
  /** Connections for report reads, beside the writer. */
  private readonly reads: DuckDbReadPool;
  private closed = false;
  private checkpointTimer: NodeJS.Timeout | null = null;
  /** Moves fresh rows into the sorted main table, on its own connection. */
  private readonly compactor: Compactor;
  /** The daily rollups the reports read, kept by this store's writes. */
  private rollups!: DuckDbRollups;
  readonly index: FlagIndex;

  private constructor(
    /** The database, for callers that need their own connection. */
    readonly instance: DuckDBInstance,
    /** Runs every write statement, one after another. */
    private readonly writer: DuckDBConnection,
    compactor: DuckDBConnection,
    freshRows: number,
    compactAtRows: number,
    /** The hostnames' current registrations, for rows an earlier version wrote without one. */
    private readonly registrationsOf: RegistrationsOf,
    indexBytes: number,
    /** Where a skipped checkpoint, a failed compaction or an index over its budget is reported. */
    private readonly log: Logger,
  ) {
    this.compactor = new Compactor(compactor, log, freshRows, compactAtRows);
    this.reads = new DuckDbReadPool(instance);
    this.index = new FlagIndex({
      budgetBytes: indexBytes,
      load: duckDbDayLoader(() => this.writer),
      onOverBudget: (day, bytes) =>
        this.log.warn('flag index over its memory budget: this day is flagged in SQL (slower)', { day: new Date(day * DAY_MS).toISOString().slice(0, 10), bytes, budget: indexBytes }),
    });
  }

  /**
   * Opens (creating when missing) the store at `path`, a file in DATA_DIR or
   * ':memory:'. `registrationsOf` names the hostnames' current registrations
   * for an older file's migration (none: its rows belong to no registration).
   * The flag index holds today and the two days before from the start, so the
   * first batches do not wait for it.
   */
  static async open(path: string, options: { log: Logger; compactAtRows?: number; registrationsOf?: RegistrationsOf; indexBytes?: number; now?: number; memoryMb?: number }): Promise<DuckDbEventStore> {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // DuckDB checkpoints inside the commit that crosses the WAL threshold; at the default
    // 16 MB that stalled a batch every ~80k rows. Checkpoints now happen when writes go
    // idle (scheduleCheckpoint); the threshold only bounds WAL replay.
    const instance = await DuckDBInstance.create(path, {
      checkpoint_threshold: '256MB',
      ...(options.memoryMb === undefined ? {} : { memory_limit: `${options.memoryMb}MB` }),
    });
    const writer = await instance.connect();
    const registrationsOf = options.registrationsOf ?? (async () => new Map<string, string>());
    await migrate(writer, registrationsOf);
    await writer.run(`CREATE TABLE IF NOT EXISTS ${MAIN_TABLE} (${STORED_DEFS})`);
    await writer.run(`CREATE TABLE IF NOT EXISTS ${FRESH_TABLE} (${STORED_DEFS})`);
    await writer.run(`CREATE OR REPLACE VIEW events AS SELECT * FROM ${MAIN_TABLE} UNION ALL SELECT * FROM ${FRESH_TABLE}`);
    await writer.run(`CREATE OR REPLACE TEMP TABLE ${TARGETS_TABLE} (${TARGETS_DEFS})`);
    const rollups = await DuckDbRollups.open(writer);
    const [state] = (await writer.runAndReadAll(`SELECT count(*) AS fresh FROM ${FRESH_TABLE}`)).getRowObjectsJS();
    const store = new DuckDbEventStore(
      instance,
      writer,
      await instance.connect(),
      Number(state?.fresh ?? 0),
      options.compactAtRows ?? COMPACT_AT_ROWS,
      registrationsOf,
      options.indexBytes ?? DEFAULT_INDEX_BYTES,
      options.log,
    );
    store.rollups = rollups;
    const today = Math.floor((options.now ?? Date.now()) / DAY_MS);
    await store.index.holdDays([today - 2, today - 1, today, today + 1]);
    return store;
  }

  /** Idempotent on (site, registration, id, ts); one batch is one transaction, so a failed call stores nothing. */
  async saveEvents(rows: readonly EventRow[]): Promise<void> {
    if (this.closed) throw new Error('event store is closed');
    await this.writes.run(async () => {
      const batch = uniqueEvents(await this.withRegistrations(rows));
      if (batch.length > 0) await this.write(batch);
    });
  }

  /**
   * Rows an earlier version collected carry no registration (its dead letters,
   * replayed after an upgrade): like the migration's, each gets its hostname's
   * current registration, or none (shown to no one). Without this they would
   * fail the batch they are in on every replay.
   */
  private async withRegistrations(rows: readonly EventRow[]): Promise<readonly EventRow[]> {
    if (rows.every((r) => typeof r.registration === 'string')) return rows;
    const sites = [...new Set(rows.filter((r) => typeof r.registration !== 'string').map((r) => r.site))];
    const current = await this.registrationsOf(sites);
    return rows.map((r) => (typeof r.registration === 'string' ? r : { ...r, registration: current.get(r.site) ?? NO_REGISTRATION }));
  }

  /** One batch: leave out stored rows, decide flags, append, recompute what the index left open; all in one transaction. */
  private async write(rows: EventRow[]): Promise<void> {
    let batch = prepareBatch(rows);
    const held = await this.index.hold(batch);
    const fresh = await this.withoutStored(batch, held);
    if (fresh.length === 0) return;
    if (fresh.length !== rows.length) batch = prepareBatch(fresh);
    const decisions = this.index.decide(batch, held);
    const targets = repairTargets(batch, decisions);
    // Recomputing flags updates stored rows, which a running compaction may be moving.
    if (targets.length > 0) await this.compactor.running;
    let forget: (() => void) | null;
    try {
      forget = await inTransaction(this.writer, async () => {
        const appender = await this.writer.createAppender(FRESH_TABLE);
        try {
          appendChunks(appender, storedColumns(batch, decisions), batch.rows);
          appender.flushSync();
        } finally {
          appender.closeSync();
        }
        if (targets.length > 0) await this.recompute(targets);
        return this.rollups.invalidate(batch.rows);
      });
    } catch (e) {
      this.index.forget(decisions.days);
      throw e;
    }
    forget?.();
    this.compactor.added(batch.rows.length);
    this.scheduleCheckpoint();
  }

  /**
   * The batch without rows already stored. The index clears most rows at
   * once; the rest (a redelivery, a repeated id at the same ts, a day not
   * held) are looked up by key and compared on the full identity.
   */
  private async withoutStored(b: PreparedBatch, held: boolean): Promise<EventRow[]> {
    const rows = b.rows as EventRow[];
    const suspects: number[] = [];
    for (let i = 0; i < rows.length; i++) if (!held || this.index.mayBeStored(b, i)) suspects.push(i);
    if (suspects.length === 0) return rows;
    let min = Infinity;
    let max = -Infinity;
    const keys = suspects.map((i) => {
      const ts = (rows[i] as EventRow).ts;
      if (ts < min) min = ts;
      if (ts > max) max = ts;
      return (BigInt(b.id[2 * i + 1] as number) << 32n) | BigInt(b.id[2 * i] as number);
    });
    const stored = await this.writer.runAndReadAll(
      `SELECT site, registration, id, ts FROM events WHERE ts BETWEEN ${Math.trunc(min)} AND ${Math.trunc(max)} AND id_key IN (SELECT unnest($keys::UBIGINT[]))`,
      { keys: listValue(keys) },
    );
    const found = new Set(stored.getRowObjectsJS().map((r) => eventKey({ site: String(r.site), registration: String(r.registration), id: String(r.id), ts: Number(r.ts) })));
    return found.size === 0 ? rows : rows.filter((r) => !found.has(eventKey(r)));
  }

  /** Runs the SQL rules over the targets, then hands the recomputed visitor-day firsts back to the index. */
  private async recompute(targets: DuckDBValue[][]): Promise<void> {
    await this.writer.run(`DELETE FROM ${TARGETS_TABLE}`);
    const appender = await this.writer.createAppender(TARGETS_TABLE, null, 'temp');
    try {
      for (const t of targets) {
        appender.appendVarchar(t[0] as string);
        appender.appendVarchar(t[1] as string);
        appender.appendVarchar(t[2] as string);
        appender.appendVarchar(t[3] as string);
        appender.appendUBigInt(t[4] as bigint);
        appender.appendBigInt(BigInt(t[5] as number));
        appender.appendBigInt(BigInt(t[6] as number));
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    for (const statement of flagRuleStatements([MAIN_TABLE, FRESH_TABLE], true)) await this.writer.run(statement);
    const firsts = (await this.writer.runAndReadAll(RECOMPUTED_FIRSTS)).getRowObjectsJS();
    const pair = new Uint32Array(2);
    const visitor = new Uint32Array(2);
    const key = new Uint32Array(2);
    for (const f of firsts) {
      keyInto(`${String(f.site)}\u0000${String(f.registration)}`, pair, 0);
      lanesOf(f.visitor_key as bigint, visitor);
      visitorDayKey(pair[0] as number, pair[1] as number, visitor[0] as number, visitor[1] as number, key);
      const day = Number(f.day);
      this.index.setFirst(day, key[0] as number, key[1] as number, f.first === null ? null : Number(f.first) - day * DAY_MS);
    }
  }

  /**
   * Builds the missing daily rollups (rollups.ts) of a site's days first..last (UTC day numbers), of the
   * variant of `filters` (none, or one `dim:value` clause) or a report's `subject`, between batches: a report reads them once this resolves.
   */
  ensureRollups(site: string, registration: string, first: number, last: number, filters: readonly FilterClause[] = [], subject?: DuckDbSubject): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.writes.run(() => this.rollups.build(site, registration, first, last, filters, subject));
  }

  /** The days of first..last whose rollups (of `filters`' variant, or `variant`) are built, as the last commit left them (loaded on a site's first look, between batches). */
  builtRollupDays(site: string, registration: string, first: number, last: number, filters: readonly FilterClause[] = [], variant?: string): Promise<number[]> {
    const known = this.rollups.known(site, registration, first, last, filters, variant);
    if (known) return Promise.resolve(known);
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.writes.run(async () => {
      await this.rollups.load(site, registration);
      return this.rollups.known(site, registration, first, last, filters, variant) as number[];
    });
  }

  /**
   * Removes the rows of `ref` in [from, to) (whole UTC days) between batches, repairing the flags
   * after them and dropping the rollups they fed (range-removal.ts); then checkpoints, which
   * frees the deleted rows' space in the file. Returns the rows removed.
   */
  removeRange(ref: SiteRef, from: number, to: number): Promise<number> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.writes.run(async () => {
      await this.compactor.running;
      const { first, last } = staleDays(from, to);
      const [removed, forget] = await inTransaction(this.writer, async () => {
        const n = await removeEventRows(this.writer, ref, from, to);
        return [n, n > 0 ? await this.rollups.removeDays(ref.site, ref.registration, first, last) : null] as const;
      });
      if (removed === 0) return 0;
      forget?.();
      this.index.forget(this.index.heldDays.filter((d) => d >= first && d <= last));
      await this.writer.run('CHECKPOINT').catch((e: unknown) => this.log.warn('duckdb checkpoint skipped', { message: (e as Error).message }));
      return removed;
    });
  }

  /** Moves every fresh row into the sorted main table now (the writer starts one every COMPACT_AT_ROWS fresh rows). */
  compact(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.writes.run(async () => {
      await this.compactor.running;
      this.compactor.moved(await compactOn(this.writer));
    });
  }

  /** Runs a read query on a pooled connection (DuckDbReadPool.query); tests and the import ledger read through it too. */
  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.reads.query<T>(sql, params);
  }

  /** Recomputes every row's flags from the stored rows (the SQL rules; tests compare it with what the index decided). */
  async recomputeAllFlags(): Promise<void> {
    await this.writes.run(async () => {
      await this.compactor.running;
      const forget = await inTransaction(this.writer, async () => {
        for (const statement of flagRuleStatements([MAIN_TABLE, FRESH_TABLE], false)) await this.writer.run(statement);
        return this.rollups.clear();
      });
      forget();
      this.index.forget(this.index.heldDays);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    await this.writes.settled();
    await this.compactor.running;
    this.reads.close();
    this.compactor.close();
    this.writer.closeSync();
    this.instance.closeSync();
  }

  /** Checkpoints once no batch has arrived for CHECKPOINT_IDLE_MS, so the work stays off busy periods. */
  private scheduleCheckpoint(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = null;
      void this.writes.run(async () => {
        if (this.closed) return;
        await this.compactor.running;
        await this.writer.run('CHECKPOINT').catch((e: unknown) => {
          // Not fatal: a long read may hold the database; the next idle period or the WAL threshold catches up.
          this.log.warn('duckdb checkpoint skipped', { message: (e as Error).message });
        });
      });
    }, CHECKPOINT_IDLE_MS);
    this.checkpointTimer.unref();
  }

  /**
   * Stores the rows of `select` (the event columns, named as in EventRow;
   * missing ones empty) exactly as saveEvents would, a chunk at a time in the
   * selection's order: for bulk loads such as the benchmark's seed.
   */
  async saveSelected(select: string): Promise<void> {
    if (this.closed) throw new Error('event store is closed');
    const connection = await this.instance.connect();
    try {
      const result = await connection.stream(select);
      const names = result.columnNames();
      let pending: EventRow[] = [];
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        for (const values of chunk.getRows()) pending.push(rowOf(names, values));
        if (pending.length >= SELECT_CHUNK) {
          await this.saveEvents(pending);
          pending = [];
        }
      }
      if (pending.length > 0) await this.saveEvents(pending);
    } finally {
      connection.closeSync();
    }
  }
}
