/**
 * A ClickHouseExecutor over an in-process chDB session (ClickHouse as a
 * library), for tests and the bench: the adapters run unchanged, only the
 * transport differs from a server's. One session per process; each store
 * under test gets a database of its own.
 */
import { Session } from 'chdb';
import { compactRows, type ClickHouseExecutor, type ClickHouseParams } from '#adapters/clickhouse/executor.ts';

let shared: Session | null = null;

/** The process's chDB session (a temporary directory, removed when the process ends). */
function session(): Session {
  shared ??= new Session();
  return shared;
}

/** Closes the session, removing its temporary directory (nothing else would): each test file using chDB calls it after all its tests. */
export function closeChdb(): void {
  shared?.close();
  shared = null;
}

const rowsOf = <T>(text: string): T[] =>
  text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T);

export function chdbExecutor(): ClickHouseExecutor {
  const s = session();
  return {
    async query<T>(sql: string, params?: ClickHouseParams) {
      const result = params ? await s.queryBindAsync(sql, params, { format: 'JSONEachRow' }) : await s.queryAsync(sql, { format: 'JSONEachRow' });
      return rowsOf<T>(result.text());
    },
    async command(sql: string, params?: ClickHouseParams) {
      if (params) await s.queryBindAsync(sql, params);
      else await s.queryAsync(sql);
    },
    async insert(table: string, rows: readonly Record<string, unknown>[]) {
      if (rows.length === 0) return;
      const { columns, values } = compactRows(rows);
      await s.insert({ table, columns, values: Buffer.from(values.map((v) => JSON.stringify(v)).join('\n')), format: 'JSONCompactEachRow' });
    },
    // The session is the process's: it outlives each store.
    close: async () => {},
  };
}
