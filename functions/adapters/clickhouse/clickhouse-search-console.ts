/**
 * Search Console rows on ClickHouse (functions/reports/sql/search-console.ts):
 * a ReplacingMergeTree keyed by (site, registration, dim, date, name) whose
 * newest version wins, read with FINAL, so a day pulled again replaces itself.
 */
import type { SiteRef } from '#ports/report-store.ts';
import type { SearchRow } from '#ports/search-console.ts';
import { SEARCH_TABLE, SEARCH_TABLE_DDL, SqlSearchStats, type SearchAggregate } from '#reports/sql/search-console.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { ident } from './schema.ts';

export class ClickHouseSearchStats extends SqlSearchStats {
  protected readonly dialect = 'clickhouse' as const;
  protected readonly table: string;
  private version = 0;

  private constructor(
    private readonly executor: ClickHouseExecutor,
    private readonly database: string,
  ) {
    super();
    this.table = `${ident(database)}.${SEARCH_TABLE}`;
  }

  /** Over the event store's executor and database; `migrate` makes the table when missing (writers). */
  static async open(executor: ClickHouseExecutor, database: string, { migrate = true } = {}): Promise<ClickHouseSearchStats> {
    if (migrate) await executor.command(SEARCH_TABLE_DDL.clickhouse(ident(database)));
    return new ClickHouseSearchStats(executor, database);
  }

  async saveSearchRows(ref: SiteRef, rows: readonly SearchRow[]): Promise<void> {
    if (rows.length === 0) return;
    // Strictly increasing within this instance, and past any earlier instance's (milliseconds, then a counter).
    this.version = Math.max(this.version + 1, Date.now() * 1000);
    const version = this.version;
    await this.executor.insert(
      `${this.database}.${SEARCH_TABLE}`,
      rows.map((r) => ({ site: ref.site, registration: ref.registration, dim: r.dim, date: r.date, name: r.name, clicks: Math.round(r.clicks), impressions: Math.round(r.impressions), position: r.position, version })),
    );
  }

  protected run(sql: string, params: Record<string, string | number>): Promise<SearchAggregate[]> {
    return this.executor.query<SearchAggregate>(sql, params);
  }
}
