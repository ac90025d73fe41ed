/**
 * What the ClickHouse adapters need of a ClickHouse: run a statement, read
 * rows, insert rows. The service talks to a server over HTTP
 * (`@clickhouse/client`, http-executor.ts); tests run the same adapters over
 * an in-process chDB session, so only the transport differs.
 */
export type ClickHouseParams = Record<string, unknown>;

export interface ClickHouseExecutor {
  /** The rows of a SELECT, `{name:Type}` placeholders bound from `params` (never spliced into the text). */
  query<T = Record<string, unknown>>(sql: string, params?: ClickHouseParams): Promise<T[]>;
  /** A statement without rows (DDL, settings). */
  command(sql: string, params?: ClickHouseParams): Promise<void>;
  /** Rows as one INSERT … FORMAT JSONEachRow into `table` (`database.table`, plain identifiers, unquoted). */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  close(): Promise<void>;
}
