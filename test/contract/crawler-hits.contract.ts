/**
 * Crawler hits (issue 41), the same suite against DuckDB and ClickHouse (chDB):
 * saving a key again replaces its hits, rows by crawler, page and category,
 * hours by category, and the scope's site, registration and range.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbCrawlerHits } from '#adapters/duckdb/duckdb-crawler-hits.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseCrawlerHits } from '#adapters/clickhouse/clickhouse-crawler-hits.ts';
import type { CrawlerHitRow, CrawlerHitStore } from '#ports/crawler-hits.ts';
import { chdbExecutor } from '../support/chdb-executor.ts';
import { log } from '#platform/log.ts';

export const CRAWLER_STORES: readonly { name: string; open(): Promise<{ store: CrawlerHitStore; close(): Promise<void> }> }[] = [
  {
    name: 'DuckDB',
    async open() {
      const events = await DuckDbEventStore.open(':memory:', { log });
      const store = await DuckDbCrawlerHits.open(events);
      return { store, close: async () => (await store.close(), await events.close()) };
    },
  },
  {
    name: 'ClickHouse (chDB)',
    async open() {
      const db = `crawlers_${randomUUID().replaceAll('-', '')}`;
      const events = await ClickHouseEventStore.open(chdbExecutor(), db, log);
      return { store: new ClickHouseCrawlerHits(events.executor, db), close: () => events.close() };
    },
  },
];

const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 2);
const SITE = { site: 'crawled.example', registration: 'reg-1' };
const row = (hour: number, crawler: string, category: CrawlerHitRow['category'], path: string, hits: number, site = SITE): CrawlerHitRow => ({ ...site, hour: T0 + hour * H, crawler, category, path, hits });
const scope = { ...SITE, from: T0, to: T0 + 48 * H };

for (const under of CRAWLER_STORES) {
  describe(`crawler hits: ${under.name}`, () => {
    let store: CrawlerHitStore;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ store, close } = await under.open());
      await store.saveCrawlerHits([
        row(1, 'GPTBot', 'ai', '/', 5),
        row(1, 'GPTBot', 'ai', '/blog', 3),
        row(2, 'ClaudeBot', 'ai', '/blog', 4),
        row(2, 'Googlebot', 'search', '/', 2),
        row(30, 'Googlebot', 'search', '/blog', 6),
        row(30, 'AhrefsBot', 'other', '/', 1),
        // Outside the scope: another registration, another site, after the range.
        row(1, 'GPTBot', 'ai', '/', 100, { ...SITE, registration: 'reg-0' }),
        row(1, 'GPTBot', 'ai', '/', 100, { ...SITE, site: 'other.example' }),
        row(48, 'GPTBot', 'ai', '/', 100),
      ]);
      // A later sync of hour 1 counts more GPTBot hits on /: the key's hits are replaced, not added.
      await store.saveCrawlerHits([row(1, 'GPTBot', 'ai', '/', 7)]);
    });
    afterAll(async () => close());

    it('lists crawlers by hits with their category and distinct pages, a key saved again counted once', async () => {
      expect(await store.crawlerRows(scope, 'crawlers', 10)).toEqual([
        { name: 'GPTBot', category: 'ai', hits: 10, pages: 2 },
        { name: 'Googlebot', category: 'search', hits: 8, pages: 2 },
        { name: 'ClaudeBot', category: 'ai', hits: 4, pages: 1 },
        { name: 'AhrefsBot', category: 'other', hits: 1, pages: 1 },
      ]);
    });

    it('lists pages by hits with the category that crawled each most', async () => {
      expect(await store.crawlerRows(scope, 'pages', 10)).toEqual([
        { name: '/blog', category: 'ai', hits: 13, pages: 1 },
        { name: '/', category: 'ai', hits: 10, pages: 1 },
      ]);
    });

    it('lists categories, and keeps to the limit', async () => {
      expect(await store.crawlerRows(scope, 'categories', 10)).toEqual([
        { name: 'ai', category: 'ai', hits: 14, pages: 2 },
        { name: 'search', category: 'search', hits: 8, pages: 2 },
        { name: 'other', category: 'other', hits: 1, pages: 1 },
      ]);
      expect(await store.crawlerRows(scope, 'categories', 1)).toHaveLength(1);
    });

    it('answers hits per hour and category', async () => {
      expect(await store.crawlerHours(scope)).toEqual([
        { hour: T0 + H, category: 'ai', hits: 10 },
        { hour: T0 + 2 * H, category: 'ai', hits: 4 },
        { hour: T0 + 2 * H, category: 'search', hits: 2 },
        { hour: T0 + 30 * H, category: 'other', hits: 1 },
        { hour: T0 + 30 * H, category: 'search', hits: 6 },
      ]);
    });
  });
}
