/** The EventStore contract against real DuckDB, in memory and in a file; plus what only the file store promises. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbEventStore, MAIN_TABLE } from '#adapters/duckdb/duckdb-event-store.ts';
import { keyOf } from '#domain/rows/flags/keys.ts';
import { eventRow, eventStoreContract, fullEventRow, type EventStoreHarness } from './event-store.contract.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { log } from '#platform/log.ts';

async function countRows(store: DuckDbEventStore, site: string): Promise<number> {
  const [row] = await store.query<{ n: bigint }>('SELECT count(*) AS n FROM events WHERE site = $site', { site });
  return Number(row?.n ?? 0);
}

async function harness(path: string, cleanup: () => void = () => {}): Promise<EventStoreHarness> {
  const store = await DuckDbEventStore.open(path, { log });
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
      const first = await DuckDbEventStore.open(path, { log });
      await first.saveEvents(rows);
      await first.close();
      const second = await DuckDbEventStore.open(path, { log });
      await second.saveEvents(rows);
      expect(await countRows(second, 'reopen.example')).toBe(2);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes many concurrent batches, storing each row once, and close waits for them', async () => {
    const store = await DuckDbEventStore.open(':memory:', { log });
    const site = 'concurrent.example';
    const batches = Array.from({ length: 6 }, (_, b) => Array.from({ length: 300 }, (_, i) => eventRow({ site, id: `b${b}-${i}`, ts: 1_750_000_000_000 + b * 1000 + i })));
    // Every batch twice, all at once: the copies are redeliveries.
    const writes = [...batches, ...batches].map((batch) => store.saveEvents(batch));
    await Promise.all(writes);
    expect(await countRows(store, site)).toBe(1800);
    const late = store.saveEvents([eventRow({ site, id: 'last', ts: 1_750_000_100_000 })]);
    await store.close();
    // Staged before the close began: stored, not cut off.
    await expect(late).resolves.toBeUndefined();
  });

  it('takes a bulk selection beside concurrent batches, without waiting on itself', async () => {
    const store = await DuckDbEventStore.open(':memory:', { log });
    try {
      const site = 'bulk.example';
      const batch = (b: number) => Array.from({ length: 200 }, (_, i) => eventRow({ site, id: `b${b}-${i}`, ts: 1_750_000_000_000 + b * 1000 + i }));
      const select = `SELECT '${site}' AS site, 'reg-bulk' AS registration, 1750000500000 + i AS ts, 'pageview' AS kind, 'sel-' || i AS id, false AS bot, false AS imported FROM range(300) t(i)`;
      await Promise.all([store.saveSelected(select), store.saveEvents(batch(1)), store.saveEvents(batch(2))]);
      expect(await countRows(store, site)).toBe(700);
    } finally {
      await store.close();
    }
  });

  it('stores every field as given, in its own column, ts as Unix milliseconds', async () => {
    const store = await DuckDbEventStore.open(':memory:', { log });
    try {
      // Every text distinct, and each flag true in exactly one row: a value appended to the wrong column shows.
      const flags = ['unique', 'bot', 'https', 'imported'] as const;
      const rows = flags.map((on, i) =>
        fullEventRow({
          site: 'fields.example', ts: 1_750_000_000_123 + i, source: 'derived source', source_id: `source-${i}`,
          viewport_width: 1280 + i, scrolled: 75 - i, duration: 12.5 + i,
          ...Object.fromEntries(flags.map((f) => [f, f === on])),
        }),
      );
      await store.saveEvents(rows);
      const stored = await store.query<Record<string, unknown>>('SELECT * FROM events ORDER BY ts');
      expect(stored).toHaveLength(rows.length);
      stored.forEach((s, i) => {
        const { replay, visitor_first, parent_ts, ...stored } = s;
        const fields = Object.fromEntries(Object.entries(stored).filter(([name]) => !name.endsWith('_key')));
        expect({ replay, visitor_first, parent_ts }).toEqual({ replay: false, visitor_first: false, parent_ts: null });
        expect({ ...fields, ts: Number(fields.ts) }).toEqual(rows[i]);
      });
      // The integer keys reports use are the keys of the string identities.
      const keys = await store.query<Record<string, bigint | null>>('SELECT id, visitor, original_id, id_key, visitor_key, parent_key FROM events ORDER BY ts');
      const keyOrNull = (text: unknown) => (text === null ? null : keyOf(text as string));
      expect(keys.map((k) => [k.id_key, k.visitor_key, k.parent_key])).toEqual(keys.map((k) => [keyOrNull(k.id), keyOrNull(k.visitor), keyOrNull(k.original_id)]));
    } finally {
      await store.close();
    }
  });

  it('fails the whole batch, storing nothing, when a row cannot be stored', async () => {
    const store = await DuckDbEventStore.open(':memory:', { log });
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
    const store = await DuckDbEventStore.open(':memory:', { log });
    await store.close();
    await expect(store.saveEvents([eventRow()])).rejects.toThrow(/closed/);
  });

  describe('flags set on insert', () => {
    const T = Date.UTC(2026, 0, 5, 12);
    const flags = (store: DuckDbEventStore, site: string) =>
      store.query<{ id: string; replay: boolean; visitor_first: boolean; parent_ts: bigint | null }>(
        'SELECT id, replay, visitor_first, parent_ts FROM events WHERE site = $site ORDER BY ts, id',
        { site },
      );

    it('marks a later row of an id within a day as a replay, and a redelivery not at all', async () => {
      const store = await DuckDbEventStore.open(':memory:', { log });
      try {
        const site = 'replay.example';
        const first = eventRow({ site, ts: T, id: 'p1' });
        await store.saveEvents([first]);
        await store.saveEvents([first, { ...first, ts: T + 3_600_000 }]);
        await store.saveEvents([{ ...first, ts: T + 2 * 86_400_000 }]);
        expect((await flags(store, site)).map((r) => r.replay)).toEqual([false, true, false]);
      } finally {
        await store.close();
      }
    });

    it('flags the earliest human pageview of each visitor hash per UTC day, also when an older batch arrives late', async () => {
      const store = await DuckDbEventStore.open(':memory:', { log });
      try {
        const site = 'first.example';
        const pv = (id: string, ts: number, over: Partial<ReturnType<typeof eventRow>> = {}) => eventRow({ site, id, ts, visitor: 'v', ...over });
        await store.saveEvents([pv('b', T + 60_000), pv('bot', T - 60_000, { bot: true }), pv('event', T - 30_000, { kind: 'event' })]);
        expect((await flags(store, site)).filter((r) => r.visitor_first).map((r) => r.id)).toEqual(['b']);
        // A retried batch, older than what is stored: its pageview becomes the first.
        await store.saveEvents([pv('a', T), pv('next-day', T + 86_400_000)]);
        expect((await flags(store, site)).filter((r) => r.visitor_first).map((r) => r.id)).toEqual(['a', 'next-day']);
      } finally {
        await store.close();
      }
    });

    it("passes a visitor-day's first to the next pageview of the batch when the batch's earliest repeats a stored id", async () => {
      const store = await DuckDbEventStore.open(':memory:', { log });
      try {
        const site = 'rescue.example';
        const pv = (id: string, ts: number, visitor = 'v') => eventRow({ site, id, ts, visitor });
        // `a` is first stored for another visitor; then `a` again for v (a replay), and later a redelivery of it
        // with a new pageview of v: the new one is v's first of the day.
        await store.saveEvents([pv('a', T, 'w')]);
        await store.saveEvents([pv('a', T + 1000)]);
        await store.saveEvents([pv('a', T + 1000), pv('c', T + 5000)]);
        // A batch whose earliest for visitor x repeats the stored `a`: its next pageview of x is x's first.
        await store.saveEvents([pv('a', T + 2000, 'x'), pv('d', T + 3000, 'x'), pv('e', T + 4000, 'x')]);
        const stored = await store.query<{ id: string; visitor: string; replay: boolean; visitor_first: boolean }>(
          'SELECT id, visitor, replay, visitor_first FROM events WHERE site = $site ORDER BY ts, id',
          { site },
        );
        expect(stored.map((r) => `${r.id}/${r.visitor}:${r.replay ? 'replay' : ''}${r.visitor_first ? 'first' : ''}`)).toEqual([
          'a/w:first', 'a/v:replay', 'a/x:replay', 'd/x:first', 'e/x:', 'c/v:first',
        ]);
      } finally {
        await store.close();
      }
    });

    const arbRow = fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      parent: fc.constantFrom('a', 'b', 'c'),
      // Half-hours over four days, some rows sharing a ts.
      offset: fc.integer({ min: -50, max: 140 }).map((h) => h * 1_800_000 + 7),
      kind: fc.constantFrom('pageview', 'pageview', 'event', 'append'),
      visitor: fc.option(fc.constantFrom('v1', 'v2', 'v3'), { nil: null }),
      bot: fc.boolean(),
      site: fc.constantFrom('s1.example', 's2.example'),
      // Two registrations of one hostname share nothing: ids, visitors and firsts are each their own.
      registration: fc.constantFrom('r1', 'r2'),
    });
    type Spec = ReturnType<typeof arbRow.generate>['value'];
    const rowOf = (r: Spec) =>
      eventRow({
        site: r.site, registration: r.registration, id: r.id, ts: T + r.offset, kind: r.kind as 'pageview', visitor: r.visitor, bot: r.bot,
        original_id: r.kind === 'append' ? r.parent : null,
      });
    const readFlags = (store: DuckDbEventStore) =>
      store.query('SELECT site, registration, kind, id, ts, replay, visitor_first, parent_ts FROM events ORDER BY site, registration, kind, id, ts');

    for (const [name, indexBytes] of [
      ['the flag index', undefined],
      ['no room for the flag index (every batch decided in SQL)', 0],
      ['a flag index that must drop days', 40_000],
    ] as const) {
      it(`keeps every flag equal to a recomputation from the stored rows alone, batches arriving in any order (${name})`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(fc.array(arbRow, { maxLength: 12 }), { maxLength: 5 }), async (batches) => {
            const store = await DuckDbEventStore.open(':memory:', { log, indexBytes, now: T });
            try {
              for (const spec of batches) await store.saveEvents(spec.map(rowOf));
              const written = await readFlags(store);
              await store.recomputeAllFlags();
              expect(written).toEqual(await readFlags(store));
            } finally {
              await store.close();
            }
          }),
          { numRuns: indexBytes === undefined ? 40 : 20 },
        );
      }, 180_000);
    }

    it('keeps every flag equal to a recomputation when every batch finds all its days only in the stored rows (loaded together)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(arbRow, { maxLength: 12 }), { maxLength: 5 }), async (batches) => {
          const store = await DuckDbEventStore.open(':memory:', { log, now: T });
          try {
            for (const spec of batches) {
              store.index.forget(store.index.heldDays);
              await store.saveEvents(spec.map(rowOf));
            }
            const written = await readFlags(store);
            await store.recomputeAllFlags();
            expect(written).toEqual(await readFlags(store));
          } finally {
            await store.close();
          }
        }),
        {
          numRuns: 40,
          // Always tried: an append stored before its page of the day before, whose day is loaded with the next one's orphans.
          examples: [[[[{ id: 'a', parent: 'a', offset: 7, kind: 'append', visitor: null, bot: false, site: 's1.example', registration: 'r1' }], [{ id: 'a', parent: 'a', offset: -44_999_993, kind: 'pageview', visitor: null, bot: false, site: 's1.example', registration: 'r1' }]]]],
        },
      );
    }, 180_000);

    it('decides from the stored rows after a reopen: replays, firsts and pages of rows written before it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tt-flags-reopen-'));
      const path = join(dir, 'events.duckdb');
      try {
        const site = 'reopen.example';
        let store = await DuckDbEventStore.open(path, { log, now: T });
        await store.saveEvents([eventRow({ site, id: 'page', ts: T, visitor: 'v' })]);
        await store.close();
        store = await DuckDbEventStore.open(path, { log, now: T });
        try {
          await store.saveEvents([
            eventRow({ site, id: 'page', ts: T + 60_000, visitor: 'v' }),
            eventRow({ site, id: 'next', ts: T + 120_000, visitor: 'v' }),
            eventRow({ site, id: 'ap', ts: T + 180_000, kind: 'append', original_id: 'page' }),
          ]);
          const written = await readFlags(store);
          expect(written.map((r) => [r.id, r.replay, r.visitor_first, r.parent_ts === null ? null : Number(r.parent_ts)])).toEqual([
            ['ap', false, false, T],
            ['next', false, false, null],
            ['page', false, true, null],
            ['page', true, false, null],
          ]);
          await store.recomputeAllFlags();
          expect(await readFlags(store)).toEqual(written);
        } finally {
          await store.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('holds its memory bound: at most 46 bytes an id and 35 bytes a visitor-day of the days it holds', async () => {
      const store = await DuckDbEventStore.open(':memory:', { log, now: T });
      try {
        const before = store.index.bytes;
        const rows = Array.from({ length: 50_000 }, (_, i) => eventRow({ site: 'bound.example', id: `id-${i}`, ts: T + i, visitor: `v-${i}` }));
        for (let i = 0; i < rows.length; i += 10_000) await store.saveEvents(rows.slice(i, i + 10_000));
        const grown = store.index.bytes - before;
        expect(grown).toBeGreaterThan(0);
        expect(grown).toBeLessThanOrEqual(rows.length * (46 + 35));
      } finally {
        await store.close();
      }
    });

    it('decides a day too big for its memory budget in SQL, with the same flags', async () => {
      const store = await DuckDbEventStore.open(':memory:', { log, now: T, indexBytes: 20_000 });
      try {
        const site = 'over.example';
        const rows = Array.from({ length: 3_000 }, (_, i) => eventRow({ site, id: `id-${i % 2_000}`, ts: T + i * 1000, visitor: `v-${i % 300}` }));
        for (let i = 0; i < rows.length; i += 500) await store.saveEvents(rows.slice(i, i + 500));
        expect(store.index.heldDays).not.toContain(Math.floor(T / 86_400_000));
        const written = await readFlags(store);
        expect(written.filter((r) => r.replay)).toHaveLength(1_000);
        expect(written.filter((r) => r.visitor_first)).toHaveLength(300);
        await store.recomputeAllFlags();
        expect(await readFlags(store)).toEqual(written);
      } finally {
        await store.close();
      }
    });

    it("gives a visitor-day's first to the smaller id when two share its ts, whichever comes first", async () => {
      const [c, a] = ['c', 'a'].map((id) => eventRow({ site: 'tie.example', registration: 'r1', id, ts: T + 7, visitor: 'v3' })) as [EventRow, EventRow];
      for (const batches of [[[c, a]], [[c], [a]], [[a], [c]]]) {
        const store = await DuckDbEventStore.open(':memory:', { log, now: T });
        try {
          for (const batch of batches) await store.saveEvents(batch);
          expect(await store.query<{ id: string }>('SELECT id FROM events WHERE visitor_first ORDER BY id')).toEqual([{ id: 'a' }]);
        } finally {
          await store.close();
        }
      }
    });

    it("stamps an append with its page's ts when the page is a human pageview of the last day", async () => {
      const store = await DuckDbEventStore.open(':memory:', { log });
      try {
        const site = 'append.example';
        const ap = (id: string, parent: string, ts: number) => eventRow({ site, id, ts, kind: 'append', original_id: parent });
        await store.saveEvents([eventRow({ site, id: 'page', ts: T }), ap('same-batch', 'page', T + 1000), eventRow({ site, id: 'robot', ts: T, bot: true })]);
        await store.saveEvents([ap('later', 'page', T + 3_600_000), ap('of-bot', 'robot', T + 2000), ap('too-late', 'page', T + 2 * 86_400_000)]);
        const byId = new Map((await flags(store, site)).map((r) => [r.id, r.parent_ts === null ? null : Number(r.parent_ts)]));
        expect(Object.fromEntries(byId)).toEqual({ page: null, robot: null, 'same-batch': T, later: T, 'of-bot': null, 'too-late': null });
      } finally {
        await store.close();
      }
    });
  });

  describe('compaction', () => {
    it('moves fresh rows into the main table sorted by site and ts, keeping every row, flag and idempotency', async () => {
      const store = await DuckDbEventStore.open(':memory:', { log });
      try {
        const rows = ['b.example', 'a.example'].flatMap((site) => [2, 1, 3].map((k) => eventRow({ site, ts: Date.UTC(2026, 0, 1) + k * 1000, visitor: 'v' })));
        await store.saveEvents(rows);
        const before = await store.query('SELECT * EXCLUDE (id_key) FROM events ORDER BY site, ts');
        await store.compact();
        const main = await store.query<{ site: string; ts: bigint }>(`SELECT site, ts FROM ${MAIN_TABLE}`);
        expect(main.map((r) => `${r.site}@${r.ts}`)).toEqual([...main].sort((x, y) => (x.site < y.site ? -1 : x.site > y.site ? 1 : Number(x.ts - y.ts))).map((r) => `${r.site}@${r.ts}`));
        expect(await store.query('SELECT count(*)::INT AS n FROM events_fresh')).toEqual([{ n: 0 }]);
        expect(await store.query('SELECT * EXCLUDE (id_key) FROM events ORDER BY site, ts')).toEqual(before);
        await store.saveEvents(rows);
        expect(await countRows(store, 'a.example')).toBe(3);
      } finally {
        await store.close();
      }
    });

    it('compacts in the background while batches go on: every row stored once, rows written meanwhile left fresh', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tt-duckdb-compact-'));
      const store = await DuckDbEventStore.open(join(dir, 'events.duckdb'), { log, compactAtRows: 1_000 });
      try {
        const site = 'busy.example';
        const T0 = Date.UTC(2026, 0, 1);
        const batches = Array.from({ length: 12 }, (_, b) => Array.from({ length: 400 }, (_, i) => eventRow({ site, id: `r${b}-${i}`, ts: T0 + b * 1000 + i, visitor: `v${i % 7}` })));
        // Every batch twice (a redelivery), several in flight while compactions run.
        await Promise.all([...batches, ...batches].map((rows) => store.saveEvents(rows)));
        await store.compact();
        const [counts] = await store.query<{ total: bigint; distinct_ids: bigint; main: bigint; firsts: bigint }>(
          `SELECT count(*) AS total, count(DISTINCT id) AS distinct_ids, (SELECT count(*) FROM ${MAIN_TABLE}) AS main, count(*) FILTER (visitor_first) AS firsts FROM events`,
        );
        expect(counts).toEqual({ total: 4800n, distinct_ids: 4800n, main: 4800n, firsts: 7n });
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('gives the rows of a file from before registrations to their hostname\'s current registration, once, or to none', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tt-duckdb-registrations-'));
      try {
        const path = join(dir, 'events.duckdb');
        const first = await DuckDbEventStore.open(path, { log, compactAtRows: 2 });
        await first.saveEvents([
          eventRow({ site: 'kept.example', id: 'a', ts: 1000, visitor: 'v' }),
          eventRow({ site: 'kept.example', id: 'a', ts: 2000, visitor: 'v' }),
          eventRow({ site: 'gone.example', id: 'b', ts: 3000 }),
        ]);
        await first.compact();
        await first.saveEvents([eventRow({ site: 'kept.example', id: 'c', ts: 4000, kind: 'append', original_id: 'a' })]);
        await first.close();
        // The two-table layout as it was before registrations: no registration column, no schema version.
        const db = await DuckDBInstance.create(path);
        const c = await db.connect();
        await c.run(`DROP VIEW events; DROP TABLE tinytrack_schema`);
        for (const table of [MAIN_TABLE, 'events_fresh']) await c.run(`ALTER TABLE ${table} DROP COLUMN registration`);
        c.closeSync();
        db.closeSync();

        const asked: string[][] = [];
        const registrationsOf = async (hostnames: readonly string[]) => {
          asked.push([...hostnames].sort());
          return new Map([['kept.example', 'reg-kept']]);
        };
        const read = (store: DuckDbEventStore) =>
          store.query('SELECT site, registration, id, ts::INT AS ts, replay, visitor_first, parent_ts::INT AS parent_ts FROM events ORDER BY ts');
        const migrated = await DuckDbEventStore.open(path, { log, registrationsOf });
        const rows = await read(migrated);
        expect(rows).toEqual([
          { site: 'kept.example', registration: 'reg-kept', id: 'a', ts: 1000, replay: false, visitor_first: true, parent_ts: null },
          { site: 'kept.example', registration: 'reg-kept', id: 'a', ts: 2000, replay: true, visitor_first: false, parent_ts: null },
          { site: 'gone.example', registration: '', id: 'b', ts: 3000, replay: false, visitor_first: false, parent_ts: null },
          { site: 'kept.example', registration: 'reg-kept', id: 'c', ts: 4000, replay: false, visitor_first: false, parent_ts: 1000 },
        ]);
        // The writer goes on with the migrated tables: a redelivery is still recognised.
        await migrated.saveEvents([eventRow({ site: 'kept.example', registration: 'reg-kept', id: 'a', ts: 1000, visitor: 'v' })]);
        expect(await countRows(migrated, 'kept.example')).toBe(3);
        await migrated.close();
        expect(asked).toEqual([['gone.example', 'kept.example'], ['kept.example']]);

        const again = await DuckDbEventStore.open(path, { log, registrationsOf });
        expect(await read(again)).toEqual(rows);
        await again.close();
        expect(asked).toHaveLength(2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('opens a file of the single-table layout, computing the flags of its rows', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'tt-duckdb-migrate-'));
      try {
        const path = join(dir, 'events.duckdb');
        // The layout before flags and compaction: one `events` table of the event columns and keys.
        const fresh = await DuckDbEventStore.open(path, { log });
        await fresh.saveEvents([eventRow({ site: 'old.example', id: 'x', ts: 1000, visitor: 'v' }), eventRow({ site: 'old.example', id: 'x', ts: 2000, visitor: 'v' })]);
        await fresh.close();
        const db = await DuckDBInstance.create(path);
        const c = await db.connect();
        const old = 'EXCLUDE (registration, replay, visitor_first, parent_ts)';
        await c.run(`CREATE TABLE events_old AS SELECT * ${old} FROM ${MAIN_TABLE} UNION ALL SELECT * ${old} FROM events_fresh`);
        await c.run(`DROP VIEW events; DROP TABLE ${MAIN_TABLE}; DROP TABLE events_fresh; DROP TABLE tinytrack_schema; ALTER TABLE events_old RENAME TO events`);
        c.closeSync();
        db.closeSync();
        const store = await DuckDbEventStore.open(path, { log });
        expect(await store.query('SELECT ts::INT AS ts, replay, visitor_first FROM events ORDER BY ts')).toEqual([
          { ts: 1000, replay: false, visitor_first: true },
          { ts: 2000, replay: true, visitor_first: false },
        ]);
        await store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
