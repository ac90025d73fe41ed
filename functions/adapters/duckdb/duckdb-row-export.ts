/** The export's page reads (issue 42) in the DuckDB file, through the event store's read pool. */
import { API_TABLE } from '#domain/api-requests/series-sql.ts';
import { SqlRowExport } from '#reports/sql/row-export.ts';
import type { ReadPool } from './read-pool.ts';

export class DuckDbRowExport extends SqlRowExport {
  protected readonly dialect = 'duckdb' as const;
  /** `events`: the view over the compacted and the fresh rows. */
  protected readonly tables = { events: 'events', api: API_TABLE };

  constructor(private readonly pool: ReadPool) {
    super();
  }

  protected run(sql: string, params: Record<string, string | number>): Promise<Record<string, unknown>[]> {
    return this.pool.query(sql, params);
  }
}
