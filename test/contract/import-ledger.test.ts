/**
 * The import ledger over each event store: imported rows found by source id
 * within the span asked, for the site's registration only.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { ClickHouseImportLedger } from '#adapters/clickhouse/clickhouse-import-ledger.ts';
import { SCHEMA_VERSION, storedRow } from '#adapters/clickhouse/schema.ts';
import { FILTER_COLUMNS } from '#domain/reports/filter.ts';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbImportLedger } from '#adapters/duckdb/duckdb-import-ledger.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ImportLedger } from '#ports/import-ledger.ts';
import { chdbExecutor, closeChdb } from '../support/chdb-executor.ts';
import { eventRow } from './event-store.contract.ts';
import { log } from '#platform/log.ts';

interface LedgerUnderTest {
  name: string;
  open(): Promise<{ events: EventStore; ledger: ImportLedger; close(): Promise<void> }>;
}

const LEDGERS: LedgerUnderTest[] = [
  {
    name: 'DuckDB',
    async open() {
      const events = await DuckDbEventStore.open(':memory:', { log });
      return { events, ledger: new DuckDbImportLedger(events), close: () => events.close() };
    },
  },
  {
    name: 'ClickHouse (chDB)',
    async open() {
      const events = await ClickHouseEventStore.open(chdbExecutor(), `ledger_${randomUUID().replaceAll('-', '')}`, log);
      return { events, ledger: new ClickHouseImportLedger(events), close: () => events.close() };
    },
  },
];

const T = Date.UTC(2025, 2, 1, 12);
const SITE = { site: 'ledger.example', registration: 'reg-now' };
const imported = (sourceId: string, ts: number, registration = SITE.registration, kind: 'pageview' | 'event' = 'pageview') =>
  eventRow({ ...SITE, registration, ts, kind, id: `import-${sourceId}`, source_id: sourceId, imported: true });

for (const store of LEDGERS) {
  describe(`import ledger: ${store.name}`, () => {
    let under: Awaited<ReturnType<LedgerUnderTest['open']>>;
    beforeAll(async () => {
      under = await store.open();
      await under.events.saveEvents([
        imported('a', T),
        imported('b', T + 1_000),
        imported('c', T + 86_400_000),
        imported('d', T, 'reg-earlier'),
        imported('g', T + 2_000, SITE.registration, 'event'),
        eventRow({ ...SITE, ts: T, id: 'collected', source_id: 'e', imported: false }),
      ]);
    });
    afterAll(() => under.close());

    it('finds the imported rows of the source ids asked, within the span, of this registration and kind only', async () => {
      const found = await under.ledger.findImported(SITE, 'pageview', ['a', 'b', 'c', 'd', 'e', 'f', 'g'], T, T + 60_000);
      expect(Object.fromEntries(found)).toEqual({ a: 'import-a', b: 'import-b' });
      expect(Object.fromEntries(await under.ledger.findImported(SITE, 'event', ['a', 'g'], T, T + 60_000))).toEqual({ g: 'import-g' });
      expect((await under.ledger.findImported(SITE, 'pageview', [], T, T + 60_000)).size).toBe(0);
    });

    it('says whether any imported row of the registration and kind lies in a span', async () => {
      expect(await under.ledger.hasImported(SITE, 'pageview', T - 1_000, T)).toBe(true);
      expect(await under.ledger.hasImported(SITE, 'pageview', T + 2_000, T + 3_000)).toBe(false);
      expect(await under.ledger.hasImported(SITE, 'event', T + 2_000, T + 3_000)).toBe(true);
      expect(await under.ledger.hasImported(SITE, 'event', T - 1_000, T + 1_000)).toBe(false);
      expect(await under.ledger.hasImported({ ...SITE, registration: 'reg-other' }, 'pageview', T - 1_000, T + 86_400_000)).toBe(false);
    });
  });
}

/** A new database taken back to `version`: later versions unrecorded, and the tables they made dropped. */
async function asVersion(executor: ReturnType<typeof chdbExecutor>, version: number, tables: readonly string[]): Promise<string> {
  const database = `migrate_${randomUUID().replaceAll('-', '')}`;
  await (await ClickHouseEventStore.open(executor, database, log)).close();
  await executor.command(`DELETE FROM ${database}.schema_migrations WHERE version > ${version}`);
  for (const table of tables) await executor.command(`DROP TABLE ${database}.${table}`);
  return database;
}

/** Where a new store's lists begin (on a database that holds no rows). */
async function emptyListing(executor: ReturnType<typeof chdbExecutor>) {
  const empty = await ClickHouseEventStore.open(executor, `migrate_${randomUUID().replaceAll('-', '')}`, log);
  try {
    return await empty.listing();
  } finally {
    await empty.close();
  }
}

/** A database taken back to `version` holding `rows`, opened again (`migrated`: just before), and the skip indexes of its events table. */
async function upgraded(executor: ReturnType<typeof chdbExecutor>, version: number, tables: readonly string[], rows: readonly EventRow[]) {
  const database = await asVersion(executor, version, tables);
  await executor.insert(`${database}.events`, rows.map(storedRow));
  const migrated = Date.now();
  const reopened = await ClickHouseEventStore.open(executor, database, log);
  const indexes = await executor.query<{ name: string; type: string }>(`SELECT name, type FROM system.data_skipping_indices WHERE database = {db:String} AND table = 'events'`, { db: database });
  return { reopened, migrated, indexes };
}

describe('ClickHouse migrations', () => {
  it('apply each version once, however often the store opens', async () => {
    const executor = chdbExecutor();
    const database = `migrate_${randomUUID().replaceAll('-', '')}`;
    for (let i = 0; i < 3; i++) await (await ClickHouseEventStore.open(executor, database, log)).close();
    const versions = await executor.query<{ version: number }>(`SELECT version FROM ${database}.schema_migrations ORDER BY version`);
    expect(versions.map((v) => Number(v.version))).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });

  it('replace the first rollup tables (version 2) with ones whose pages keep the columns filters compare', async () => {
    const executor = chdbExecutor();
    const database = `migrate_${randomUUID().replaceAll('-', '')}`;
    await (await ClickHouseEventStore.open(executor, database, log)).close();
    // The database as version 2 left it: the first rollup tables, and no later version.
    await executor.command(`DELETE FROM ${database}.schema_migrations WHERE version >= 3`);
    await executor.command(`DROP TABLE ${database}.rollup_v2_copies`);
    for (const t of ['labels', 'builds', 'stale', 'slots', 'pages']) {
      await executor.command(`DROP TABLE ${database}.rollup_v2_${t}`);
      await executor.command(`CREATE TABLE ${database}.rollup_v1_${t} (site String, day Int32) ENGINE = MergeTree ORDER BY (site, day)`);
    }
    await (await ClickHouseEventStore.open(executor, database, log)).close();
    const tables = await executor.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = {db:String} AND name LIKE 'rollup%' ORDER BY name`, { db: database });
    expect(tables.map((t) => t.name)).toEqual(['labels', 'builds', 'copies', 'pages', 'slots', 'stale'].map((t) => `rollup_v2_${t}`).sort());
    const columns = await executor.query<{ name: string }>(`SELECT name FROM system.columns WHERE database = {db:String} AND table = 'rollup_v2_pages'`, { db: database });
    expect(columns.map((c) => c.name)).toEqual(expect.arrayContaining(Object.values(FILTER_COLUMNS)));
  });

  it('keep the builds made before copies were listed (version 3), reading their days through the copy window', async () => {
    const executor = chdbExecutor();
    const database = `migrate_${randomUUID().replaceAll('-', '')}`;
    const day = Math.floor(Date.now() / 86_400_000) - 3;
    const events = await ClickHouseEventStore.open(executor, database, log);
    const pageview = (ts: number) => eventRow({ ...SITE, ts, id: randomUUID(), kind: 'pageview', path: '/', bot: false, visitor: null, unique: null });
    await events.saveEvents([pageview(day * 86_400_000 + 3_600_000), pageview(day * 86_400_000 + 7_200_000)]);
    await events.rollups.build(SITE.site, SITE.registration, [day]);
    await events.close();
    // The database as version 3 left it: a build without `plain`, no copies table.
    await executor.command(`DELETE FROM ${database}.schema_migrations WHERE version >= 4`);
    await executor.command(`DROP TABLE ${database}.rollup_v2_copies`);
    await executor.command(`ALTER TABLE ${database}.rollup_v2_builds DROP COLUMN plain`);
    const reopened = await ClickHouseEventStore.open(executor, database, log);
    expect(await reopened.rollups.usable(SITE.site, SITE.registration)).toEqual([{ day, builtAt: expect.any(Number), pages: true, plain: false }]);
    const scope = { ...SITE, from: day * 86_400_000 + 1_800_000, to: (day + 1) * 86_400_000, filters: [] };
    const rolled = new ClickHouseReportStore(reopened);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => r.value)).toEqual([2]);
    await reopened.close();
  });

  it('begin the list of copies (version 6) at once on a database that held no rows, and after the migration on one that did, whose rows are read through the copy window; index the ids', async () => {
    const executor = chdbExecutor();
    expect((await emptyListing(executor)).since).toBe(0);
    const t = Date.now() - 7_200_000;
    const pageview = (ts: number) => eventRow({ ...SITE, ts, id: 'twice', kind: 'pageview', path: '/', bot: false });
    // The database as version 5 left it: rows with a copy among them, and no list.
    const { reopened, migrated, indexes } = await upgraded(executor, 5, ['listed_copies', 'listed_copies_since'], [pageview(t), pageview(t + 3_600_000)]);
    expect((await reopened.listing()).since).toBeGreaterThan(migrated);
    expect(indexes).toContainEqual({ name: 'id_bloom', type: 'bloom_filter' });
    const scope = { ...SITE, from: t, to: t + 7_200_000, filters: [] };
    expect((await new ClickHouseReportStore(reopened, { rollups: false }).breakdown(scope, 'pages', 10)).map((r) => r.value)).toEqual([1]);
    await reopened.close();
  });

  it('begin the list of appends (version 7) at once on a database that held no rows, and after the migration on one that did, whose pages find their appends through the window; index the original ids', async () => {
    const executor = chdbExecutor();
    expect((await emptyListing(executor)).appendsSince).toBe(0);
    const t = Date.now() - 7_200_000;
    const page = eventRow({ ...SITE, ts: t, id: 'page', kind: 'pageview', path: '/', bot: false, duration: 4 });
    const append = eventRow({ ...SITE, ts: t + 60_000, id: 'append', kind: 'append', original_id: 'page', duration: 6 });
    // The database as version 6 left it: a page and its append, and no list of appends.
    const { reopened, migrated, indexes } = await upgraded(executor, 6, ['listed_appends', 'listed_appends_since'], [page, append]);
    expect((await reopened.listing()).appendsSince).toBeGreaterThan(migrated);
    expect(indexes).toContainEqual({ name: 'original_bloom', type: 'bloom_filter' });
    const scope = { ...SITE, from: t - 3_600_000, to: t + 3_600_000, filters: [] };
    const e = await new ClickHouseReportStore(reopened, { rollups: false }).engagement(scope, [10, 11], []);
    expect([e.measured, e.durationAtLeast[10], e.durationAtLeast[11]]).toEqual([1, 1, 0]);
    await reopened.close();
  });

  it('keep the builds made before variants (version 4) as the site\'s own, and build variants beside them', async () => {
    const executor = chdbExecutor();
    const database = `migrate_${randomUUID().replaceAll('-', '')}`;
    const day = Math.floor(Date.now() / 86_400_000) - 3;
    const events = await ClickHouseEventStore.open(executor, database, log);
    const pageview = (ts: number, country: string) => eventRow({ ...SITE, ts, id: randomUUID(), kind: 'pageview', path: '/', bot: false, visitor: null, unique: null, country });
    await events.saveEvents([pageview(day * 86_400_000 + 3_600_000, 'DE'), pageview(day * 86_400_000 + 7_200_000, 'FR')]);
    await events.close();
    // The database as version 4 left it: builds, labels and slots without a variant, one day built.
    await executor.command(`DELETE FROM ${database}.schema_migrations WHERE version >= 5`);
    await executor.command(`DROP TABLE ${database}.rollup_v2_builds`);
    await executor.command(`CREATE TABLE ${database}.rollup_v2_builds (site String, registration String, day Int32, built_at Int64, plain Bool DEFAULT false)
      ENGINE = ReplacingMergeTree(built_at) ORDER BY (site, registration, day)`);
    for (const table of ['rollup_v2_labels', 'rollup_v2_slots']) {
      await executor.command(`ALTER TABLE ${database}.${table} REMOVE TTL`);
      await executor.command(`ALTER TABLE ${database}.${table} DROP COLUMN variant`);
    }
    await executor.command(
      `INSERT INTO ${database}.rollup_v2_builds (site, registration, day, built_at, plain) SELECT {site:String}, {registration:String}, {day:Int32}, toUnixTimestamp64Micro(now64(6)), true`,
      { ...SITE, day },
    );
    const reopened = await ClickHouseEventStore.open(executor, database, log);
    const own = await reopened.rollups.usable(SITE.site, SITE.registration);
    expect(own).toEqual([{ day, builtAt: expect.any(Number), pages: true, plain: true }]);
    expect(await reopened.rollups.usable(SITE.site, SITE.registration, 'country:DE')).toEqual([]);
    await reopened.rollups.build(SITE.site, SITE.registration, [day], [{ dim: 'country', op: 'eq', value: 'DE' }]);
    expect((await reopened.rollups.usable(SITE.site, SITE.registration, 'country:DE')).map((u) => [u.day, u.plain])).toEqual([[day, false]]);
    // Merged, a day's builds of two variants stay two.
    await executor.command(`OPTIMIZE TABLE ${database}.rollup_v2_builds FINAL`);
    expect(await reopened.rollups.usable(SITE.site, SITE.registration)).toEqual(own);
    await reopened.close();
  });
});

afterAll(closeChdb);
