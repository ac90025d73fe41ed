/** The EventStore contract on ClickHouse, through an in-process chDB session (the server's engine, as a library). */
import { randomUUID } from 'node:crypto';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { chdbExecutor, closeChdb } from '../support/chdb-executor.ts';
import { eventRow, eventStoreContract } from './event-store.contract.ts';

eventStoreContract('ClickHouse (chDB)', async () => {
  const store = await ClickHouseEventStore.open(chdbExecutor(), `contract_${randomUUID().replaceAll('-', '')}`);
  return {
    store,
    // No FINAL: what a report reads, so a row the merge would fold later counts twice here.
    countRows: async (site) => Number((await store.executor.query<{ n: number }>(`SELECT count() AS n FROM ${store.table} WHERE site = {site:String}`, { site }))[0]?.n),
    close: () => store.close(),
  };
});

describe('ClickHouse event store: redelivery look-ups of a large batch', () => {
  it('looks nothing up for a batch of several look-ups into an empty span, and stores it once however it comes again', async () => {
    const chdb = chdbExecutor();
    const lookups: string[] = [];
    const executor = { ...chdb, query: <T>(sql: string, params?: Parameters<typeof chdb.query>[1]) => (lookups.push(sql), chdb.query<T>(sql, params)) };
    const store = await ClickHouseEventStore.open(executor, `lookups_${randomUUID().replaceAll('-', '')}`);
    try {
      const site = 'month.example';
      const start = Date.parse('2025-03-01T00:00:00Z');
      const rows = Array.from({ length: 5_000 }, (_, i) => eventRow({ site, id: `row-${i}`, ts: start + i * 60_000 }));
      lookups.length = 0;
      await store.saveEvents(rows);
      expect(lookups.filter((sql) => sql.includes('id IN'))).toEqual([]);
      // The whole batch again, and a part of it beside new rows of the same span: only the new rows are added.
      const more = Array.from({ length: 1_000 }, (_, i) => eventRow({ site, id: `more-${i}`, ts: start + i * 60_000 + 1 }));
      await store.saveEvents(rows);
      await store.saveEvents([...rows.slice(2_000, 4_500), ...more]);
      const [count] = await store.executor.query<{ n: number; ids: number }>(`SELECT count() AS n, count(DISTINCT id) AS ids FROM ${store.table} WHERE site = {site:String}`, { site });
      expect({ n: Number(count?.n), ids: Number(count?.ids) }).toEqual({ n: 6_000, ids: 6_000 });
    } finally {
      await store.close();
    }
  });
});

afterAll(closeChdb);
