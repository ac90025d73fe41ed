/** The EventStore contract on ClickHouse, through an in-process chDB session (the server's engine, as a library). */
import { randomUUID } from 'node:crypto';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { afterAll } from 'vitest';
import { chdbExecutor, closeChdb } from '../support/chdb-executor.ts';
import { eventStoreContract } from './event-store.contract.ts';

eventStoreContract('ClickHouse (chDB)', async () => {
  const store = await ClickHouseEventStore.open(chdbExecutor(), `contract_${randomUUID().replaceAll('-', '')}`);
  return {
    store,
    // No FINAL: what a report reads, so a row the merge would fold later counts twice here.
    countRows: async (site) => Number((await store.executor.query<{ n: number }>(`SELECT count() AS n FROM ${store.table} WHERE site = {site:String}`, { site }))[0]?.n),
    close: () => store.close(),
  };
});

afterAll(closeChdb);
