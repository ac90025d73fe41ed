/**
 * Search Console rows in the DuckDB file (functions/reports/sql/search-console.ts):
 * a batch replaces the rows of the same key in one statement, on a
 * connection of its own; reads go through the event store's read pool.
 */
import { BIGINT, DOUBLE, LIST, listValue, VARCHAR, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import type { SiteRef } from '#ports/report-store.ts';
import type { SearchRow } from '#ports/search-console.ts';
import { SEARCH_TABLE, SEARCH_TABLE_DDL, SqlSearchStats, type SearchAggregate } from '#reports/sql/search-console.ts';
import type { DuckDbEventStore } from './duckdb-event-store.ts';
import { removeSideRows } from './duckdb-site-data.ts';
import { Serial } from '#domain/serial.ts';

const TYPES = { dim: LIST(VARCHAR), date: LIST(VARCHAR), name: LIST(VARCHAR), clicks: LIST(BIGINT), impressions: LIST(BIGINT), position: LIST(DOUBLE), site: VARCHAR, registration: VARCHAR };

export class DuckDbSearchStats extends SqlSearchStats {
  protected readonly dialect = 'duckdb' as const;
  protected readonly table = SEARCH_TABLE;
  private readonly writes = new Serial();

  private constructor(
    private readonly events: DuckDbEventStore,
    private readonly writer: DuckDBConnection,
  ) {
    super();
  }

  static async open(events: DuckDbEventStore): Promise<DuckDbSearchStats> {
    const writer = await events.instance.connect();
    await writer.run(SEARCH_TABLE_DDL.duckdb);
    return new DuckDbSearchStats(events, writer);
  }

  saveSearchRows(ref: SiteRef, rows: readonly SearchRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    const list = <K extends keyof SearchRow>(k: K, f: (v: SearchRow[K]) => DuckDBValue = (v) => v as DuckDBValue) => listValue(rows.map((r) => f(r[k])));
    const params: Record<string, DuckDBValue> = {
      site: ref.site,
      registration: ref.registration,
      dim: list('dim'),
      date: list('date'),
      name: list('name'),
      clicks: list('clicks', (v) => BigInt(Math.round(v))),
      impressions: list('impressions', (v) => BigInt(Math.round(v))),
      position: list('position'),
    };
    const run = this.writes.run(() =>
      this.writer.run(
        `INSERT OR REPLACE INTO ${SEARCH_TABLE} SELECT DISTINCT ON (dim, date, name) $site, $registration, *
           FROM (SELECT unnest($dim) AS dim, unnest($date) AS date, unnest($name) AS name, unnest($clicks), unnest($impressions), unnest($position))`,
        params,
        TYPES,
      ),
    );
    return run.then(() => undefined);
  }

  /** Removes the site's rows of the days in [from, to), in the writes' turn (ports/site-data.ts). */
  removeRange(ref: SiteRef, from: number, to: number): Promise<number> {
    return this.writes.run(() => removeSideRows(this.writer, 'search_console', ref, from, to));
  }

  protected run(sql: string, params: Record<string, string | number>): Promise<SearchAggregate[]> {
    return this.events.query<SearchAggregate>(sql, params);
  }

  async close(): Promise<void> {
    await this.writes.settled();
    this.writer.closeSync();
  }
}
