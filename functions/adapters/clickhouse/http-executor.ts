/**
 * The executor over a ClickHouse server (or ClickHouse Cloud) through
 * `@clickhouse/client`: HTTP, credentials from the settings, 64-bit integers
 * as JSON numbers (the adapters read counts and Unix milliseconds, all below
 * 2^53). No default database: every statement names `database` itself, and
 * the store creates it at start, so a new server needs nothing prepared (a
 * server refuses every request naming a database that does not exist yet).
 */
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { compactRows, type ClickHouseExecutor, type ClickHouseParams } from './executor.ts';

export interface ClickHouseSettings {
  url: string;
  user: string;
  password: string;
  database: string;
  /** How long one request may take (the client's default: 30 s); bulk loads need longer. */
  requestTimeoutMs?: number;
}

/** Settings every statement runs with: LEFT JOINs give NULLs (not defaults), as the report SQL expects. */
export const SESSION_SETTINGS = { join_use_nulls: 1, output_format_json_quote_64bit_integers: 0 } as const;

export function clickHouseHttpExecutor(settings: ClickHouseSettings, client?: ClickHouseClient): ClickHouseExecutor {
  const ch =
    client ??
    createClient({
      url: settings.url,
      username: settings.user,
      password: settings.password,
      clickhouse_settings: SESSION_SETTINGS,
      application: 'tinytrack',
      ...(settings.requestTimeoutMs === undefined ? {} : { request_timeout: settings.requestTimeoutMs }),
    });
  return {
    async query<T>(sql: string, params?: ClickHouseParams) {
      const result = await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' });
      return result.json<T>();
    },
    async command(sql: string, params?: ClickHouseParams) {
      await ch.command({ query: sql, query_params: params });
    },
    async insert(table: string, rows: readonly Record<string, unknown>[]) {
      if (rows.length === 0) return;
      const { columns, values } = compactRows(rows);
      await ch.insert({ table, columns, values, format: 'JSONCompactEachRow' });
    },
    close: () => ch.close(),
  };
}
