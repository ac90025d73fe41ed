/**
 * The API-requests series on ClickHouse: a ReplacingMergeTree of rows and
 * SummingMergeTree rollups that materialized views fill from every insert
 * (functions/reports/sql/api-requests.ts). A batch leaves out the rows already
 * stored (a redelivery), looked up by (site, registration, ts), the sort key,
 * so the rollups count each request once; writes of one instance run one
 * after another.
 */
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import { API_TABLE } from '#domain/api-requests/series-sql.ts';
import { SqlApiRequestStore, type HistogramRow } from '#reports/sql/api-store.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { ident } from './schema.ts';

const LOOKUP_ROWS = 2_000;
const keyOf = (r: { site: string; registration: string; id: string; ts: number | string }) => `${r.site}\n${r.registration}\n${r.id}\n${Number(r.ts)}`;

export class ClickHouseApiRequests extends SqlApiRequestStore {
  protected readonly dialect = 'clickhouse' as const;

  /** Over the event store's executor and database, whose migrations made the tables. */
  constructor(
    private readonly executor: ClickHouseExecutor,
    protected override readonly database: string,
  ) {
    super();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new RangeError(`invalid ClickHouse database name: ${database}`);
  }

  saveApiRequests(rows: readonly ApiRequestRow[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.inTurn(() => this.write(rows));
  }

  private async write(rows: readonly ApiRequestRow[]): Promise<void> {
    const unique = new Map<string, ApiRequestRow>();
    for (const r of rows) unique.set(keyOf(r), r);
    const stored = new Set<string>();
    const all = [...unique.values()];
    for (let i = 0; i < all.length; i += LOOKUP_ROWS) {
      const part = all.slice(i, i + LOOKUP_ROWS);
      const found = await this.executor.query<{ site: string; registration: string; id: string; ts: string }>(
        `SELECT site, registration, id, ts FROM ${ident(this.database)}.${API_TABLE}
         WHERE site IN {sites:Array(String)} AND registration IN {registrations:Array(String)}
           AND ts >= {first:Int64} AND ts <= {last:Int64} AND id IN {ids:Array(String)}`,
        {
          sites: [...new Set(part.map((r) => r.site))],
          registrations: [...new Set(part.map((r) => r.registration))],
          first: Math.min(...part.map((r) => r.ts)),
          last: Math.max(...part.map((r) => r.ts)),
          ids: part.map((r) => r.id),
        },
      );
      for (const f of found) stored.add(keyOf(f));
    }
    const fresh = all.filter((r) => !stored.has(keyOf(r)));
    if (fresh.length === 0) return;
    await this.executor.insert(
      `${this.database}.${API_TABLE}`,
      fresh.map((r) => ({
        site: r.site,
        registration: r.registration,
        ts: r.ts,
        id: r.id,
        method: r.method,
        route: r.route,
        status: r.status,
        duration_ms: r.duration_ms,
        bytes_in: r.bytes_in,
        bytes_out: r.bytes_out,
        consumer: r.consumer,
      })),
    );
  }

  /** Stores the rows a SELECT names (columns as ApiRequestRow's) in one statement, rollups included: the bench's seeding. */
  async saveSelected(select: string): Promise<void> {
    await this.executor.command(`INSERT INTO ${ident(this.database)}.${API_TABLE} ${select}`);
  }

  protected run(sql: string, params: Record<string, unknown>): Promise<HistogramRow[]> {
    return this.executor.query<HistogramRow>(sql, params);
  }
}
