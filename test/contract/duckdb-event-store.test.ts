/** The EventStore contract against real DuckDB, in memory and in a file; plus what only the file store promises. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { eventRow, eventStoreContract, fullEventRow, type EventStoreHarness } from './event-store.contract.ts';

async function countRows(store: DuckDbEventStore, site: string): Promise<number> {
  const [row] = await store.query<{ n: bigint }>('SELECT count(*) AS n FROM events WHERE site = $site', { site });
  return Number(row?.n ?? 0);
}

async function harness(path: string, cleanup: () => void = () => {}): Promise<EventStoreHarness> {
  const store = await DuckDbEventStore.open(path);
  return {
    store,
    countRows: (site) => countRows(store, site),
    close: async () => {
      await store.close();
      cleanup();
    },
  };
}

eventStoreContract('DuckDB in memory', () => harness(':memory:'));

eventStoreContract('DuckDB file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tt-duckdb-contract-'));
  return harness(join(dir, 'events.duckdb'), () => rmSync(dir, { recursive: true, force: true }));
});

describe('DuckDbEventStore', () => {
  it('keeps its rows across a close and reopen of the file, and stays idempotent after it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tt-duckdb-reopen-'));
    try {
      const path = join(dir, 'nested', 'events.duckdb');
      const rows = [fullEventRow({ site: 'reopen.example' }), eventRow({ site: 'reopen.example' })];
      const first = await DuckDbEventStore.open(path);
      await first.saveEvents(rows);
      await first.close();
      const second = await DuckDbEventStore.open(path);
      await second.saveEvents(rows);
      expect(await countRows(second, 'reopen.example')).toBe(2);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stores every field as given, ts as Unix milliseconds', async () => {
    const store = await DuckDbEventStore.open(':memory:');
    try {
      const row = fullEventRow({ site: 'fields.example', ts: 1_750_000_000_123 });
      await store.saveEvents([row]);
      const [stored] = await store.query<Record<string, unknown>>('SELECT * FROM events');
      const { id_key, visitor_key, parent_key, ...fields } = stored ?? {};
      expect({ ...fields, ts: Number(fields.ts) }).toEqual(row);
      // The integer keys reports use are hashes of the string identities.
      const [keys] = await store.query<Record<string, unknown>>('SELECT hash(id) AS i, hash(visitor) AS v, hash(original_id) AS p FROM events');
      expect([id_key, visitor_key, parent_key]).toEqual([keys?.i, keys?.v, keys?.p]);
    } finally {
      await store.close();
    }
  });

  it('fails the whole batch, storing nothing, when a row cannot be stored', async () => {
    const store = await DuckDbEventStore.open(':memory:');
    try {
      const bad = { ...eventRow({ site: 'bad.example' }), id: null } as unknown as ReturnType<typeof eventRow>;
      await expect(store.saveEvents([eventRow({ site: 'bad.example' }), bad])).rejects.toThrow();
      expect(await countRows(store, 'bad.example')).toBe(0);
      await store.saveEvents([eventRow({ site: 'bad.example' })]);
      expect(await countRows(store, 'bad.example')).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('refuses writes after close', async () => {
    const store = await DuckDbEventStore.open(':memory:');
    await store.close();
    await expect(store.saveEvents([eventRow()])).rejects.toThrow(/closed/);
  });
});
