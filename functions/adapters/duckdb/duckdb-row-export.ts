/**
 * The export's page reads (issue 42) in the DuckDB file, on read connections of their own (an
 * export's pages do not wait behind reports, nor reports behind an export), rows read as arrays.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import { API_TABLE } from '#domain/api-requests/series-sql.ts';
import { SqlRowExport } from '#reports/sql/row-export.ts';
import { DuckDbReadPool, type RowArrays } from './read-pool.ts';

export class DuckDbRowExport extends SqlRowExport {
  protected readonly dialect = 'duckdb' as const;
  /** `events`: the view over the compacted and the fresh rows. */
  protected readonly tables = { events: 'events', api: API_TABLE };

  private readonly pool: DuckDbReadPool;

  /** Over the event store's database (`events.instance`). */
  constructor(instance: DuckDBInstance) {
    super();
    this.pool = new DuckDbReadPool(instance);
  }

  close(): void {
    this.pool.close();
  }

  protected async run(sql: string, params: Record<string, string | number>): Promise<Record<string, unknown>[]> {
    const { names, rows }: RowArrays = await this.pool.rows(sql, params);
    return rows.map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
      return row;
    });
  }
}
