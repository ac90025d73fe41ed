/**
 * Where the DuckDB report store gets its read connections. The report store
 * only reads, so it takes this small interface instead of the event store:
 * the composition root decides which connections serve reports (today the
 * event store's own pooled readers, `events.query`).
 */
import type { DuckDBValue } from '@duckdb/node-api';

export interface ReadPool {
  /**
   * Runs one read statement with named parameters (`$name`) and returns plain
   * JS rows (BIGINT columns as bigint). Integer parameters bind as BIGINT.
   */
  query<T = Record<string, unknown>>(sql: string, params: Record<string, DuckDBValue>): Promise<T[]>;
}
