/**
 * Compaction of the event store: the writer appends to the fresh table, and
 * every COMPACT_AT_ROWS fresh rows their move into the main table, sorted by
 * (site, ts) so report scans prune by site and time, runs on a connection of
 * its own while the writer goes on appending.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { FRESH_TABLE, MAIN_TABLE } from './schema.ts';
import { inTransaction } from './transaction.ts';
import type { Logger } from '#ports/logger.ts';

/** Fresh rows that trigger a compaction: several row groups (122,880 rows each) per sorted run. */
export const COMPACT_AT_ROWS = 500_000;

/** Moves the fresh rows into the main table in (site, ts) order. */
const compactSql = `INSERT INTO ${MAIN_TABLE} SELECT * FROM ${FRESH_TABLE} ORDER BY site, ts`;

/**
 * One compaction on `connection`, in one transaction: it moves the fresh rows
 * it sees and deletes just those, so rows committed meanwhile stay fresh for
 * the next one; a crash leaves the rows in the fresh table, never in both or
 * neither. Returns the rows moved.
 */
export function compactOn(connection: DuckDBConnection): Promise<number> {
  return inTransaction(connection, async () => {
    await connection.run(compactSql);
    const moved = await connection.run(`DELETE FROM ${FRESH_TABLE}`);
    return Number(moved.rowsChanged);
  });
}

/** Counts the fresh rows and starts a compaction on its own connection once there are enough. */
export class Compactor {
  /** The compaction running, if any: a batch that recomputes flags of stored rows waits for it. */
  running: Promise<void> | null = null;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly log: Logger,
    /** Rows in the fresh table: writes add theirs, each compaction takes off those it moved. */
    private freshRows: number,
    private readonly compactAtRows: number = COMPACT_AT_ROWS,
  ) {}

  /** The writer committed `rows` fresh rows. A failed compaction leaves them fresh; the next batch starts it again. */
  added(rows: number): void {
    this.freshRows += rows;
    if (this.freshRows < this.compactAtRows || this.running) return;
    this.running = compactOn(this.connection)
      .then((moved) => {
        this.freshRows -= moved;
      })
      .catch((e: unknown) => {
        this.log.warn('duckdb compaction failed', { message: (e as Error).message });
      })
      .finally(() => {
        this.running = null;
      });
  }

  /** A compaction on another connection (the writer's, for `compact()`) moved rows too. */
  moved(rows: number): void {
    this.freshRows -= rows;
  }

  close(): void {
    this.connection.closeSync();
  }
}
