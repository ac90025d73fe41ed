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

type Appender = DuckDBAppender;

interface Column {
  name: keyof EventRow;
  sql: string;
  /** Appends this column's value of `row`; one typed call per value is the appender's fast path. */
  append: (appender: Appender, row: EventRow) => void;
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
    INSERT INTO events (${COLUMN_LIST})
    SELECT ${COLUMN_LIST} FROM staging s
    WHERE NOT EXISTS (
      SELECT 1 FROM events e
      WHERE e.site = s.site AND e.id = s.id AND e.ts = s.ts AND e.ts BETWEEN ${min} AND ${max}
    )`;
}

export type QueryParams = DuckDBValue[] | Record<string, DuckDBValue>;

/**
 * Rows staged per INSERT. Small enough that appending the next slice on one
 * lane (JS thread) overlaps the previous slice's INSERT on the other (DuckDB
 * threads); large enough that per-statement overhead stays small.
 */
const SLICE_ROWS = 1250;

/**
 * A writer connection with its own staging table (temporary tables are
 * per connection) and its prepared INSERT. Two lanes alternate so that the
 * appender and the anti-join run side by side.
 */
class WriteLane {
  /** The lane's INSERT in progress, if any; never rejects (see `insert`). */
  private running: Promise<Error | null> = Promise.resolve(null);

  private constructor(private readonly connection: DuckDBConnection) {}

  static async open(instance: DuckDBInstance): Promise<WriteLane> {
    const connection = await instance.connect();
    await connection.run(`CREATE TEMP TABLE staging (${COLUMN_DEFS})`);
    return new WriteLane(connection);
  }

  /** Waits for the lane's previous INSERT, then stages `rows` and starts their INSERT. */
  async write(rows: readonly EventRow[]): Promise<Error | null> {
    const previous = await this.running;
    if (previous) return previous;
    await this.stage(rows);
    const { min, max } = tsRange(rows);
    this.running = this.connection.run(insertNewSql(min, max)).then(
      () => this.clear(null),
      (e: unknown) => this.clear(e instanceof Error ? e : new Error(String(e))),
    );
    return null;
  }

  /** The outcome of the lane's last INSERT. */
  settled(): Promise<Error | null> {
    const outcome = this.running;
    this.running = Promise.resolve(null);
    return outcome;
  }

  close(): void {
    this.connection.closeSync();
  }

  /** Empties staging after every INSERT, failed ones included, so no row is inserted twice. */
  private async clear(error: Error | null): Promise<Error | null> {
    try {
      await this.connection.run('DELETE FROM staging');
      return error;
    } catch (e) {
      return error ?? (e as Error);
    }
  }

  /**
   * Loads rows into staging through the appender, row by row with typed calls
   * (measured faster here than filling DuckDBDataChunks, whose null handling is costly).
   */
  private async stage(rows: readonly EventRow[]): Promise<void> {
    const appender = await this.connection.createAppender('staging');
    try {
      for (const row of rows) {
        for (const column of COLUMNS) column.append(appender, row);
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }
}

export class DuckDbEventStore implements EventStore {
  /** saveEvents calls run one after another; this is the tail of that chain. */
  private writes: Promise<unknown> = Promise.resolve();
  private readonly idleReaders: DuckDBConnection[] = [];
  private readonly readers = new Set<DuckDBConnection>();
  private closed = false;

  private constructor(
    /** The database, for callers that need their own connection. */
    readonly instance: DuckDBInstance,
    private readonly lanes: readonly WriteLane[],
  ) {}

  /** Opens (creating when missing) the store at `path`, a file in DATA_DIR or ':memory:'. */
  static async open(path: string): Promise<DuckDbEventStore> {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const instance = await DuckDBInstance.create(path, process.env.DDB_THREADS ? { threads: process.env.DDB_THREADS } : undefined);
    const setup = await instance.connect();
    // No primary key: an ART index over (site, id, ts) costs too much memory at 10 M rows;
    // idempotency comes from the anti-join in insertNewSql instead.
    await setup.run(`CREATE TABLE IF NOT EXISTS events (${COLUMN_DEFS})`);
    setup.closeSync();
    const lanes = [await WriteLane.open(instance), await WriteLane.open(instance)];
    return new DuckDbEventStore(instance, lanes);
  }

  /**
   * Idempotent on (site, id, ts). Batches are written one at a time. A failed
   * call may have stored part of its rows; retrying it is safe and stores the rest.
   */
  saveEvents(rows: readonly EventRow[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const run = this.writes.then(() => this.write(rows));
    this.writes = run.catch(() => undefined);
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
    await this.writes;
    for (const connection of this.readers) connection.closeSync();
    for (const lane of this.lanes) lane.close();
    this.instance.closeSync();
  }

  private async newReader(): Promise<DuckDBConnection> {
    const connection = await this.instance.connect();
    this.readers.add(connection);
    return connection;
  }

  /**
   * Slices alternate between the lanes. Slices of one batch never share a
   * key (the batch is de-duplicated first), so their concurrent anti-joins
   * cannot both insert the same row; the next batch starts only after every
   * INSERT of this one has committed.
   */
  private async write(rows: readonly EventRow[]): Promise<void> {
    const batch = uniqueEvents(rows);
    let failure: Error | null = null;
    for (let start = 0, i = 0; start < batch.length && !failure; start += SLICE_ROWS, i++) {
      const lane = this.lanes[i % this.lanes.length] as WriteLane;
      failure = await lane.write(batch.slice(start, start + SLICE_ROWS)).catch((e: unknown) => e as Error);
    }
    const outcomes = await Promise.all(this.lanes.map((lane) => lane.settled()));
    failure ??= outcomes.find((e) => e !== null) ?? null;
    if (failure) throw failure;
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
