/**
 * Search Console rows, the same suite against every store that keeps them
 * (DuckDB, ClickHouse over chDB): replacing a day pulled again, totals from
 * the total rows, breakdowns weighted by impressions, days, registrations kept apart.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbSearchStats } from '#adapters/duckdb/duckdb-search-console.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseSearchStats } from '#adapters/clickhouse/clickhouse-search-console.ts';
import type { SearchRow, SearchStatsStore } from '#ports/search-console.ts';
import { chdbExecutor, closeChdb } from '../support/chdb-executor.ts';
import { log } from '#platform/log.ts';

const STORES: readonly { name: string; open(): Promise<{ store: SearchStatsStore; close(): Promise<void> }> }[] = [
  {
    name: 'DuckDB',
    async open() {
      const events = await DuckDbEventStore.open(':memory:', { log });
      const store = await DuckDbSearchStats.open(events);
      return { store, close: async () => (await store.close(), await events.close()) };
    },
  },
  {
    name: 'ClickHouse (chDB)',
    async open() {
      const db = `gsc_${randomUUID().replaceAll('-', '')}`;
      const events = await ClickHouseEventStore.open(chdbExecutor(), db, log);
      return { store: await ClickHouseSearchStats.open(events.executor, db), close: () => events.close() };
    },
  },
];

const REF = { site: 'example.com', registration: 'reg-1' };
const row = (date: string, dim: SearchRow['dim'], name: string, clicks: number, impressions: number, position: number): SearchRow => ({ date, dim, name, clicks, impressions, position });

afterAll(() => closeChdb());

for (const under of STORES) {
  describe(`Search Console rows on ${under.name}`, () => {
    let store: SearchStatsStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await under.open());
      await store.saveSearchRows(REF, [
        row('2026-03-01', 'total', '', 10, 100, 4),
        row('2026-03-02', 'total', '', 5, 300, 8),
        row('2026-03-03', 'total', '', 99, 999, 1),
        row('2026-03-01', 'queries', 'tinytrack', 8, 40, 2),
        row('2026-03-02', 'queries', 'tinytrack', 2, 60, 7),
        row('2026-03-02', 'queries', 'analytics', 3, 200, 10),
        row('2026-03-02', 'pages', 'https://example.com/', 5, 300, 8),
      ]);
      // The same day pulled again (Google's numbers moved): replaces, never adds.
      await store.saveSearchRows(REF, [row('2026-03-02', 'total', '', 6, 300, 8), row('2026-03-02', 'queries', 'analytics', 4, 200, 10)]);
      await store.saveSearchRows({ ...REF, registration: 'reg-0' }, [row('2026-03-01', 'total', '', 1000, 1000, 1)]);
    });
    afterAll(() => close());

    const range = { ...REF, from: '2026-03-01', to: '2026-03-02' };

    it('totals sum the total rows of the range, the position weighted by impressions', async () => {
      const t = await store.searchTotals(range);
      expect(t).toEqual({ clicks: 16, impressions: 400, ctr: 16 / 400, position: (4 * 100 + 8 * 300) / 400 });
    });

    it('breakdowns group by name, most clicks first, limited', async () => {
      const rows = await store.searchBreakdown(range, 'queries', 10);
      expect(rows).toEqual([
        { name: 'tinytrack', clicks: 10, impressions: 100, ctr: 0.1, position: (2 * 40 + 7 * 60) / 100 },
        { name: 'analytics', clicks: 4, impressions: 200, ctr: 0.02, position: 10 },
      ]);
      expect(await store.searchBreakdown(range, 'queries', 1)).toHaveLength(1);
      expect(await store.searchBreakdown(range, 'devices', 10)).toEqual([]);
    });

    it('days list the total rows oldest first', async () => {
      expect(await store.searchDays(range)).toEqual([
        { date: '2026-03-01', clicks: 10, impressions: 100 },
        { date: '2026-03-02', clicks: 6, impressions: 300 },
      ]);
    });

    it('an empty range has zero totals and no position', async () => {
      expect(await store.searchTotals({ ...REF, from: '2025-01-01', to: '2025-01-31' })).toEqual({ clicks: 0, impressions: 0, ctr: 0, position: null });
    });
  });
}
