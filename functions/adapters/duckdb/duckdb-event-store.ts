/**
 * Event store on one DuckDB file (the local / single-node runtime). Owns the
 * `events` table, the idempotent batch writer (appender → staging table →
 * one anti-joined INSERT) and a small read helper for report queries.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  DuckDBInstance,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBValue,
} from '@duckdb/node-api';
import { uniqueEvents, type EventRow, type EventStore } from '#ports/event-store.ts';

interface Column {
  name: keyof EventRow;
  sql: string;
  /** Appends this column's value of `row`; one typed call per value is the appender's fast path. */
  append: (appender: DuckDBAppender, row: EventRow) => void;
}

type Field<V> = { [K in keyof EventRow]: EventRow[K] extends V ? K : never }[keyof EventRow];

const text = (name: Field<string | null>, sql = 'VARCHAR'): Column => ({
  name,
  sql,
  append: (a, row) => {
    const v = row[name];
    if (v === null || v === undefined) a.appendNull();
    else a.appendVarchar(v);
  },
});

const flag = (name: Field<boolean | null>, sql = 'BOOLEAN'): Column => ({
  name,
  sql,
  append: (a, row) => {
    const v = row[name];
    if (v === null || v === undefined) a.appendNull();
    else a.appendBoolean(v);
  },
});

/** Rounded: one stray fraction (say from an import) must not fail a whole batch. */
const whole = (name: Field<number | null>): Column => ({
  name,
  sql: 'INTEGER',
  append: (a, row) => {
    const v = row[name];
    if (typeof v === 'number' && Number.isFinite(v)) a.appendInteger(Math.round(v));
    else a.appendNull();
  },
});

/**
 * One column per EventRow field, in a fixed order shared by the table, the
 * staging table and the appender. `ts` is BIGINT Unix milliseconds: range
 * filters compare plain int64s against integer parameters, so zone maps
 * prune row groups with no cast in the way (a TIMESTAMP column compared with
 * a TIMESTAMPTZ parameter would be cast per row and lose pruning); reports
 * bucket with `epoch_ms(ts)`.
 */
const COLUMNS: readonly Column[] = [
  text('site', 'VARCHAR NOT NULL'),
  { name: 'ts', sql: 'BIGINT NOT NULL', append: (a, row) => a.appendBigInt(BigInt(Math.trunc(row.ts))) },
  text('kind', 'VARCHAR NOT NULL'),
  text('id', 'VARCHAR NOT NULL'),
  text('original_id'),
  text('event'),
  text('visitor'),
  flag('unique'),
  text('page_id'),
  text('session_id'),
  text('path'),
  text('query'),
  text('referrer'),
  text('referrer_host'),
  text('utm_source'),
  text('utm_medium'),
  text('utm_campaign'),
  text('utm_term'),
  text('utm_content'),
  text('source'),
  text('country'),
  text('browser'),
  text('os'),
  text('device'),
  text('language'),
  whole('viewport_width'),
  whole('viewport_height'),
  whole('screen_width'),
  whole('screen_height'),
  {
    name: 'duration',
    sql: 'DOUBLE',
    append: (a, row) => (Number.isFinite(row.duration) ? a.appendDouble(row.duration as number) : a.appendNull()),
  },
  whole('scrolled'),
  flag('bot', 'BOOLEAN NOT NULL'),
  text('metadata'),
  flag('https'),
  flag('imported', 'BOOLEAN NOT NULL'),
  text('source_id'),
];

/** Quoted: `unique` is a reserved word. */
const COLUMN_LIST = COLUMNS.map((c) => `"${c.name}"`).join(', ');
const COLUMN_DEFS = COLUMNS.map((c) => `"${c.name}" ${c.sql}`).join(', ');

/**
 * 64-bit keys of the string identities, computed on insert: reports count
 * distinct ids and visitors and join appends to pages on integers, which is
 * several times cheaper than on strings. (A collision within one site and
 * range is about 1 in 10^7 at a million pageviews.)
 */
export const KEY_COLUMNS = [
  { name: 'id_key', from: 'id' },
  { name: 'visitor_key', from: 'visitor' },
  { name: 'parent_key', from: 'original_id' },
] as const;
const KEY_DEFS = KEY_COLUMNS.map((k) => `${k.name} UBIGINT`).join(', ');
const KEY_LIST = KEY_COLUMNS.map((k) => k.name).join(', ');
/** The key expressions over the string columns; NULL stays NULL. */
export const KEY_VALUES = KEY_COLUMNS.map((k) => `CASE WHEN "${k.from}" IS NULL THEN NULL ELSE hash("${k.from}") END`).join(', ');

/**
 * Copies the staged rows not yet stored. The ts range on `e` lets zone maps
 * skip every row group outside the batch's time span (redeliveries carry
 * identical ts), so the anti-join stays cheap on a large table without an
 * index. The bounds are inlined as integer literals, not bound parameters:
 * the planner then prunes with table statistics too, and a statement
 * prepared once would keep a join order chosen for an empty table (both
 * measured several times slower).
 */
function insertNewSql(min: bigint, max: bigint): string {
  return `
    INSERT INTO events (${COLUMN_LIST}, ${KEY_LIST})
    SELECT ${COLUMN_LIST}, ${KEY_VALUES} FROM staging s
    WHERE NOT EXISTS (
      SELECT 1 FROM events e
      WHERE e.site = s.site AND e.id = s.id AND e.ts = s.ts AND e.ts BETWEEN ${min} AND ${max}
    )`;
}

export type QueryParams = DuckDBValue[] | Record<string, DuckDBValue>;

/** Quiet time after the last batch before the WAL is checkpointed into the database file. */
const CHECKPOINT_IDLE_MS = 2_000;

export class DuckDbEventStore implements EventStore {
  /** Writes run one after another on the writer connection; this is the tail of that chain. */
  private writes: Promise<unknown> = Promise.resolve();
  private readonly idleReaders: DuckDBConnection[] = [];
  private readonly readers = new Set<DuckDBConnection>();
  private closed = false;
  private checkpointTimer: NodeJS.Timeout | null = null;

  private constructor(
    /** The database, for callers that need their own connection. */
    readonly instance: DuckDBInstance,
    /** Owns the staging table: temporary tables belong to one connection. */
    private readonly writer: DuckDBConnection,
  ) {}

  /** Opens (creating when missing) the store at `path`, a file in DATA_DIR or ':memory:'. */
  static async open(path: string): Promise<DuckDbEventStore> {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    // DuckDB checkpoints inside the commit that crosses the WAL threshold; at the default
    // 16 MB that stalled a batch every ~80k rows and re-compressed the same row groups
    // again and again (measured: a third of the writer's time). Checkpoints now happen
    // when writes go idle (scheduleCheckpoint); the threshold only bounds WAL replay.
    const instance = await DuckDBInstance.create(path, { checkpoint_threshold: '256MB' });
    const writer = await instance.connect();
    // No primary key: an ART index over (site, id, ts) costs too much memory at 10 M rows;
    // idempotency comes from the anti-join in insertNewSql instead.
    await writer.run(`CREATE TABLE IF NOT EXISTS events (${COLUMN_DEFS}, ${KEY_DEFS})`);
    await writer.run(`CREATE TEMP TABLE staging (${COLUMN_DEFS})`);
    return new DuckDbEventStore(instance, writer);
  }

  /** Idempotent on (site, id, ts); one batch is one INSERT, so a failed call stores nothing. */
  saveEvents(rows: readonly EventRow[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const run = this.serialize(() => this.write(rows));
    this.scheduleCheckpoint();
    return run;
  }

  /**
   * Runs a read query on a pooled connection and returns plain JS rows
   * (BIGINT columns come back as bigint). Pass integer parameters as JS
   * integers or bigints: they bind as BIGINT, keeping `ts` range filters prunable.
   */
  async query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]> {
    if (this.closed) throw new Error('event store is closed');
    const connection = this.idleReaders.pop() ?? (await this.newReader());
    try {
      const reader = await connection.runAndReadAll(sql, params);
      return reader.getRowObjectsJS() as T[];
    } finally {
      this.idleReaders.push(connection);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    await this.writes;
    for (const connection of this.readers) connection.closeSync();
    this.writer.closeSync();
    this.instance.closeSync();
  }

  private serialize(task: () => Promise<void>): Promise<void> {
    const run = this.writes.then(task);
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** Checkpoints once no batch has arrived for CHECKPOINT_IDLE_MS, so the work stays off busy periods. */
  private scheduleCheckpoint(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = setTimeout(() => {
      this.checkpointTimer = null;
      void this.serialize(async () => {
        if (this.closed) return;
        await this.writer.run('CHECKPOINT').catch((e: unknown) => {
          // Not fatal: a long read may hold the database; the next idle period or the WAL threshold catches up.
          console.error(JSON.stringify({ level: 'warn', msg: 'duckdb checkpoint skipped', message: (e as Error).message }));
        });
      });
    }, CHECKPOINT_IDLE_MS);
    this.checkpointTimer.unref();
  }

  private async newReader(): Promise<DuckDBConnection> {
    const connection = await this.instance.connect();
    this.readers.add(connection);
    return connection;
  }

  private async write(rows: readonly EventRow[]): Promise<void> {
    const batch = uniqueEvents(rows);
    if (batch.length === 0) return;
    // Emptied before rather than after: a failed batch may have left rows behind.
    await this.writer.run('DELETE FROM staging');
    await this.stage(batch);
    const { min, max } = tsRange(batch);
    await this.writer.run(insertNewSql(min, max));
  }

  /**
   * Loads the batch into staging through the appender, row by row with typed
   * calls (measured faster here than filling DuckDBDataChunks, whose null
   * handling is costly, and than staging JSON text).
   */
  private async stage(batch: readonly EventRow[]): Promise<void> {
    const appender = await this.writer.createAppender('staging');
    try {
      for (const row of batch) {
        for (const column of COLUMNS) column.append(appender, row);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }
}

function tsRange(rows: readonly EventRow[]): { min: bigint; max: bigint } {
  let min = Infinity;
  let max = -Infinity;
  for (const { ts } of rows) {
    if (ts < min) min = ts;
    if (ts > max) max = ts;
  }
  return { min: BigInt(Math.trunc(min)), max: BigInt(Math.trunc(max)) };
}
