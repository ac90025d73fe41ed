/**
 * ClickHouse for the bench: chDB (the server's engine as a library) behind a
 * stand-in of ClickHouse's HTTP interface in this process, as the tests use
 * it (test/support/chdb-http-server.ts). It runs one statement at a time.
 */
import { startChdbHttpServer } from '../support/chdb-http-server.ts';

export interface ClickHouseSettings {
  url: string;
  user: string;
  password: string;
  database: string;
}

/** Runs `work` against a stand-in started for it, closed after. */
export async function withClickHouse<T>(database: string, work: (settings: ClickHouseSettings) => Promise<T>): Promise<T> {
  const credentials = { user: 'bench', password: 'bench-only' };
  const server = await startChdbHttpServer(credentials);
  try {
    return await work({ url: server.url, ...credentials, database });
  } finally {
    await server.close();
  }
}

/** `npm start`'s settings for that server (CLICKHOUSE_*). */
export const clickHouseEnv = (s: ClickHouseSettings, database = s.database): Record<string, string> => ({
  CLICKHOUSE_URL: s.url,
  CLICKHOUSE_USER: s.user,
  CLICKHOUSE_PASSWORD: s.password,
  CLICKHOUSE_DATABASE: database,
});
