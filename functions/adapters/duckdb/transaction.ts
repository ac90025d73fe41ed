import type { DuckDBConnection } from '@duckdb/node-api';

/** Runs `work` on `connection` in one transaction: committed when it resolves, rolled back (and rethrown) when it throws. */
export async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (e) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
