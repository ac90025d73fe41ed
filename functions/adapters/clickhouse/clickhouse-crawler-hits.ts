/**
 * Crawler hits on ClickHouse (functions/reports/sql/crawlers.ts): a
 * ReplacingMergeTree by the key, each save a newer version of its keys; the
 * table is made by the event store's migrations (schema.ts).
 */
import type { CrawlerHitRow } from '#ports/crawler-hits.ts';
import { CRAWLER_TABLE } from '#domain/crawlers/hits-sql.ts';
import { SqlCrawlerHits } from '#reports/sql/crawlers.ts';
import type { ClickHouseExecutor } from './executor.ts';
import { ident } from './schema.ts';

export class ClickHouseCrawlerHits extends SqlCrawlerHits {
  protected readonly dialect = 'clickhouse' as const;
  protected readonly table: string;

  constructor(
    private readonly executor: ClickHouseExecutor,
    private readonly database: string,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.table = `${ident(database)}.${CRAWLER_TABLE}`;
  }

  async saveCrawlerHits(rows: readonly CrawlerHitRow[]): Promise<void> {
    if (rows.length === 0) return;
    const saved_at = this.now();
    await this.executor.insert(
      `${this.database}.${CRAWLER_TABLE}`,
      rows.map((r, i) => ({ site: r.site, registration: r.registration, hour: r.hour, crawler: r.crawler, category: r.category, path: r.path, hits: r.hits, saved_at: saved_at * 1000 + i })),
    );
  }

  protected run(sql: string, params: Record<string, string | number>): Promise<Record<string, unknown>[]> {
    return this.executor.query(sql, params);
  }
}
