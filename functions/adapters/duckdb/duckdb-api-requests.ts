/**
 * The API-requests series in the DuckDB file: rows, and rollups kept by each
 * write (functions/reports/sql/api-requests.ts). A batch is staged, freed of
 * the rows already stored (redeliveries: looked up within the batch's time
 * span, which the `ts` zone maps prune), then stored with its rollups in one
 * transaction. Writes run one after another on a connection of their own.
 */
import { BIGINT, DOUBLE, LIST, listValue, SMALLINT, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import { API_TABLE, DUCKDB_API } from '#domain/api-requests/series-sql.ts';
import { SqlApiRequestStore, type HistogramRow } from '#reports/sql/api-store.ts';
import { inTransaction } from './transaction.ts';
import type { DuckDbEventStore } from './duckdb-event-store.ts';
import { removeSideRows } from './duckdb-site-data.ts';
import type { SiteRef } from '#ports/report-store.ts';

const BATCH = 'api_batch';
const BATCH_COLUMNS = 'site VARCHAR, registration VARCHAR, ts BIGINT, id VARCHAR, method VARCHAR, route VARCHAR, status SMALLINT, duration_ms DOUBLE, bytes_in BIGINT, bytes_out BIGINT, consumer VARCHAR';
const FIELDS = ['site', 'registration', 'ts', 'id', 'method', 'route', 'status', 'duration_ms', 'bytes_in', 'bytes_out', 'consumer'] as const;
/** Each field's list type, given: inferred from the values, a list starting with nulls loses its strings. */
const FIELD_TYPES: Record<(typeof FIELDS)[number], DuckDBType> = {
  site: LIST(VARCHAR),
  registration: LIST(VARCHAR),
  ts: LIST(BIGINT),
  id: LIST(VARCHAR),
  method: LIST(VARCHAR),
  route: LIST(VARCHAR),
  status: LIST(SMALLINT),
  duration_ms: LIST(DOUBLE),
  bytes_in: LIST(BIGINT),
  bytes_out: LIST(BIGINT),
  consumer: LIST(VARCHAR),
};

export class DuckDbApiRequests extends SqlApiRequestStore {
  protected readonly dialect = 'duckdb' as const;

  private constructor(
    private readonly events: DuckDbEventStore,
    private readonly writer: DuckDBConnection,
  ) {
    super();
  }

  /** The series over the event store's database: its tables made when missing, a write connection of its own. */
  static async open(events: DuckDbEventStore): Promise<DuckDbApiRequests> {
    const writer = await events.instance.connect();
    for (const statement of DUCKDB_API.tables) await writer.run(statement);
    await writer.run(`CREATE OR REPLACE TEMP TABLE ${BATCH} (${BATCH_COLUMNS})`);
    return new DuckDbApiRequests(events, writer);
  }

  saveApiRequests(rows: readonly ApiRequestRow[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.inTurn(() => this.write(rows));
  }

  private async write(rows: readonly ApiRequestRow[]): Promise<void> {
    const params: Record<string, DuckDBValue> = {};
    for (const f of FIELDS) params[f] = listValue(rows.map((r) => (f === 'ts' || f === 'bytes_in' || f === 'bytes_out' ? (r[f] === null ? null : BigInt(r[f])) : r[f]) as DuckDBValue));
    let first = Infinity;
    let last = -Infinity;
    for (const r of rows) {
      first = Math.min(first, r.ts);
      last = Math.max(last, r.ts);
    }
    await inTransaction(this.writer, async () => {
      await this.writer.run(`DELETE FROM ${BATCH}`);
      await this.writer.run(
        `INSERT INTO ${BATCH} SELECT DISTINCT ON (site, registration, id, ts) * FROM (SELECT ${FIELDS.map((f) => `unnest($${f}) AS ${f}`).join(', ')})`,
        params,
        FIELD_TYPES,
      );
      await this.writer.run(
        `DELETE FROM ${BATCH} b WHERE EXISTS (SELECT 1 FROM ${API_TABLE} r WHERE r.ts BETWEEN ${Math.trunc(first)} AND ${Math.trunc(last)}
           AND r.site = b.site AND r.registration = b.registration AND r.id = b.id AND r.ts = b.ts)`,
      );
      for (const statement of DUCKDB_API.store(BATCH)) await this.writer.run(statement);
    });
  }

  /**
   * Stores the rows a SELECT names (columns as ApiRequestRow's), rollups included, in one
   * statement each: how the bench seeds millions of rows without the writer's round trips.
   */
  async saveSelected(select: string): Promise<void> {
    await this.inTurn(() =>
      inTransaction(this.writer, async () => {
        await this.writer.run(`CREATE OR REPLACE TEMP TABLE api_selected AS ${select}`);
        for (const statement of DUCKDB_API.store('api_selected')) await this.writer.run(statement);
        await this.writer.run('DROP TABLE api_selected');
      }),
    );
  }

  /** Removes the site's requests in [from, to) with their rollups, in the writes' turn (ports/site-data.ts). */
  async removeRange(ref: SiteRef, from: number, to: number): Promise<number> {
    let removed = 0;
    await this.inTurn(async () => {
      removed = await removeSideRows(this.writer, 'api_requests', ref, from, to);
    });
    return removed;
  }

  protected run(sql: string, params: Record<string, unknown>): Promise<HistogramRow[]> {
    const bound: Record<string, DuckDBValue> = {};
    for (const [name, value] of Object.entries(params)) {
      if (!new RegExp(`\\$${name}\\b`).test(sql)) continue;
      bound[name] = Array.isArray(value) ? listValue(value as DuckDBValue[]) : (value as DuckDBValue);
    }
    return this.events.query<HistogramRow>(sql, bound);
  }

  async close(): Promise<void> {
    await this.settled();
    this.writer.closeSync();
  }
}
