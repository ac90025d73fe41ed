/**
 * Where DuckDB keeps the rows, behind the `events` view: compacted rows, and rows since. The
 * writer creates and fills them (adapters/duckdb/schema.ts), the reports read them.
 */
export const MAIN_TABLE = 'events_main';
export const FRESH_TABLE = 'events_fresh';
