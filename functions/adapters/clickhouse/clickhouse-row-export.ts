/** The export's page reads (issue 42) on ClickHouse: the event table and the API-requests table of the store's database. */
import { API_TABLE } from '#domain/api-requests/series-sql.ts';
import { SqlRowExport } from '#reports/sql/row-export.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { EVENTS_TABLE, ident } from './schema.ts';

export class ClickHouseRowExport extends SqlRowExport {
  protected readonly dialect = 'clickhouse' as const;
  protected readonly tables: { events: string; api: string };

  constructor(
    private readonly executor: ClickHouseExecutor,
    database: string,
  ) {
    super();
    this.tables = { events: `${ident(database)}.${EVENTS_TABLE}`, api: `${ident(database)}.${API_TABLE}` };
  }

  protected run(sql: string, params: Record<string, string | number>): Promise<Record<string, unknown>[]> {
    return this.executor.query(sql, params);
  }
}
