/**
 * Crawler hits in the DuckDB file (functions/reports/sql/crawlers.ts): a
 * write connection of its own, writes one after another, each batch
 * replacing the hits of the keys it names; reads through the event store's pool.
 */
import { BIGINT, LIST, listValue, VARCHAR, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import type { CrawlerHitRow } from '#ports/crawler-hits.ts';
import { CRAWLER_TABLE, DUCKDB_CRAWLER_TABLE } from '#domain/crawlers/hits-sql.ts';
import { SqlCrawlerHits } from '#reports/sql/crawlers.ts';
import { inTransaction } from './transaction.ts';
import type { DuckDbEventStore } from './duckdb-event-store.ts';
import { removeSideRows } from './duckdb-site-data.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { Serial } from '#domain/serial.ts';

const FIELDS = ['site', 'registration', 'hour', 'crawler', 'category', 'path', 'hits'] as const;

/** One row per key, the last given winning (a key twice in one statement is a conflict DuckDB refuses). */
export function lastPerKey(rows: readonly CrawlerHitRow[]): CrawlerHitRow[] {
  const byKey = new Map<string, CrawlerHitRow>();
  for (const r of rows) byKey.set(JSON.stringify([r.site, r.registration, r.hour, r.crawler, r.path]), r);
  return [...byKey.values()];
}

export class DuckDbCrawlerHits extends SqlCrawlerHits {
  protected readonly dialect = 'duckdb' as const;
  protected readonly table = CRAWLER_TABLE;
  private readonly writes = new Serial();

  private constructor(
    private readonly events: DuckDbEventStore,
    private readonly writer: DuckDBConnection,
  ) {
    super();
  }

  static async open(events: DuckDbEventStore): Promise<DuckDbCrawlerHits> {
    const writer = await events.instance.connect();
    await writer.run(DUCKDB_CRAWLER_TABLE);
    return new DuckDbCrawlerHits(events, writer);
  }

  saveCrawlerHits(rows: readonly CrawlerHitRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return this.writes.run(() => this.write(lastPerKey(rows)));
  }

  private async write(rows: readonly CrawlerHitRow[]): Promise<void> {
    const params: Record<string, DuckDBValue> = {};
    for (const f of FIELDS) params[f] = listValue(rows.map((r) => (f === 'hour' || f === 'hits' ? BigInt(r[f]) : r[f])));
    const types = Object.fromEntries(FIELDS.map((f) => [f, f === 'hour' || f === 'hits' ? LIST(BIGINT) : LIST(VARCHAR)]));
    await inTransaction(this.writer, () =>
      this.writer.run(`INSERT OR REPLACE INTO ${CRAWLER_TABLE} (${FIELDS.join(', ')}) SELECT ${FIELDS.map((f) => `unnest($${f})`).join(', ')}`, params, types),
    );
  }

  /** Removes the site's hits of the hours in [from, to), in the writes' turn (ports/site-data.ts). */
  removeRange(ref: SiteRef, from: number, to: number): Promise<number> {
    return this.writes.run(() => removeSideRows(this.writer, 'crawler_hits', ref, from, to));
  }

  protected run(sql: string, params: Record<string, string | number>): Promise<Record<string, unknown>[]> {
    return this.events.query(sql, params);
  }

  async close(): Promise<void> {
    await this.writes.settled();
    this.writer.closeSync();
  }
}
