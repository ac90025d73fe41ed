/** The EventStore contract on ClickHouse, through an in-process chDB session (the server's engine, as a library). */
import { randomUUID } from 'node:crypto';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { LISTED_APPENDS, LISTED_APPENDS_SINCE, LISTED_COPIES, LISTED_SINCE, storedRow } from '#adapters/clickhouse/schema.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { chdbExecutor, closeChdb } from '../support/chdb-executor.ts';
import { eventRow, eventStoreContract } from './event-store.contract.ts';
import { log } from '#platform/log.ts';

eventStoreContract('ClickHouse (chDB)', async () => {
  const store = await ClickHouseEventStore.open(chdbExecutor(), `contract_${randomUUID().replaceAll('-', '')}`, log);
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
    const store = await ClickHouseEventStore.open(executor, `lookups_${randomUUID().replaceAll('-', '')}`, log);
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

/** Runs `work` over a store of a database of its own, closed after. */
const withStore = async (work: (store: ClickHouseEventStore) => Promise<void>) => {
  const store = await ClickHouseEventStore.open(chdbExecutor(), `listed_${randomUUID().replaceAll('-', '')}`, log);
  try {
    await work(store);
  } finally {
    await store.close();
  }
};

describe('ClickHouse event store: the copies each batch lists', () => {
  const HOUR = 3_600_000;
  const pageview = (site: string, id: string, ts: number) => eventRow({ site, id, ts, kind: 'pageview', path: '/', bot: false });
  /** As the first delivery of a batch that died after its rows and before its list leaves them. */
  const storedUnlisted = (store: ClickHouseEventStore, rows: readonly EventRow[]) => store.executor.insert(`${store.database}.events`, rows.map(storedRow));
  const listed = async (store: ClickHouseEventStore, site: string) =>
    (
      await store.executor.query<{ id: string; ts: number; exact: boolean }>(
        `SELECT id, ts, exact FROM ${store.database}.${LISTED_COPIES} FINAL WHERE site = {site:String} ORDER BY ts`,
        { site },
      )
    ).map((r) => [r.id, Number(r.ts), Boolean(r.exact)]);
  /** Canonical pageviews of [from, to), read from the rows (no rollup). */
  const pageviews = async (store: ClickHouseEventStore, site: string, from: number, to: number) => {
    const [row] = await new ClickHouseReportStore(store, { rollups: false }).breakdown({ site, registration: 'reg-contract', from, to, filters: [] }, 'pages', 10);
    return row?.value ?? 0;
  };

  it('lists a copy whichever of its rows comes first, and when a batch whose first delivery died before listing comes again', () =>
    withStore(async (store) => {
      const site = 'listed.example';
      const t = Date.now() - 3 * HOUR;
      await store.saveEvents([pageview(site, 'late-first', t + HOUR)]);
      await store.saveEvents([pageview(site, 'late-first', t)]);
      await store.saveEvents([pageview(site, 'redelivered', t)]);
      const copy = pageview(site, 'redelivered', t + 2 * HOUR);
      await storedUnlisted(store, [copy]);
      expect(await listed(store, site)).toEqual([['late-first', t + HOUR, false]]);
      expect(await pageviews(store, site, t, t + 3 * HOUR)).toBe(3);
      await store.saveEvents([copy]);
      expect(await listed(store, site)).toEqual([
        ['late-first', t + HOUR, false],
        ['redelivered', t + 2 * HOUR, false],
      ]);
      expect(await pageviews(store, site, t, t + 3 * HOUR)).toBe(2);
    }));

  it('reads the rows stored before its list began through the copy window, and a copy of one since from the list', () =>
    withStore(async (store) => {
      const site = 'since.example';
      const since = Date.now() - 10 * HOUR;
      // Rows of a database the list began on: stored before it, unlisted.
      await storedUnlisted(store, [pageview(site, 'before', since - 3 * HOUR), pageview(site, 'before', since - 2 * HOUR), pageview(site, 'across', since - HOUR)]);
      await store.executor.command(`INSERT INTO ${store.database}.${LISTED_SINCE} (since) VALUES ({since:Int64})`, { since });
      const reader = ClickHouseEventStore.attach(store.executor, store.database, log);
      expect((await reader.listing()).since).toBe(since);
      await reader.saveEvents([pageview(site, 'across', since + HOUR), pageview(site, 'after', since + 2 * HOUR), pageview(site, 'after', since + 3 * HOUR)]);
      expect(await listed(reader, site)).toEqual([
        ['across', since + HOUR, false],
        ['after', since + 3 * HOUR, false],
      ]);
      expect(await pageviews(reader, site, since - 4 * HOUR, since + 4 * HOUR)).toBe(3);
    }));

  it('lists the copies of a batch, and its appends, in one statement each whatever its size, alone in its span or beside other rows', async () => {
    const chdb = chdbExecutor();
    const listings: string[] = [];
    const inserts = (table: string) => listings.filter((sql) => sql.includes(`INSERT INTO ${store.database}.${table} (`) || sql.includes(`INSERT INTO "${store.database}".${table} (`));
    const executor = { ...chdb, command: (sql: string, params?: Parameters<typeof chdb.command>[1]) => (listings.push(sql), chdb.command(sql, params)) };
    const store = await ClickHouseEventStore.open(executor, `listed_${randomUUID().replaceAll('-', '')}`, log);
    try {
      const site = 'batches.example';
      const t = Date.now() - 50 * HOUR;
      const batch = (prefix: string, at: number) => Array.from({ length: 5_000 }, (_, i) => pageview(site, `${prefix}-${i}`, at + i * 1_000));
      // Alone in its span: the copy its last rows repeat.
      const first = batch('first', t);
      listings.length = 0;
      await store.saveEvents([...first, { ...first[4_999]!, ts: t + 10 * HOUR }]);
      expect(inserts(LISTED_COPIES)).toHaveLength(1);
      expect(inserts(LISTED_APPENDS)).toHaveLength(1);
      // Beside it, the copy among the last ones.
      const second = batch('second', t + 20 * HOUR);
      listings.length = 0;
      await store.saveEvents([...second, { ...second[4_500]!, ts: t + 22 * HOUR }]);
      expect(inserts(LISTED_COPIES)).toHaveLength(1);
      expect(inserts(LISTED_APPENDS)).toHaveLength(1);
      expect(await listed(store, site)).toEqual([
        ['first-4999', t + 10 * HOUR, false],
        ['second-4500', t + 22 * HOUR, false],
      ]);
    } finally {
      await store.close();
    }
  });

  it('takes no row as listed while the start of its list cannot be read, and asks again on the next read', async () => {
    const chdb = chdbExecutor();
    let failures = 1;
    const executor = {
      ...chdb,
      query: <T>(sql: string, params?: Parameters<typeof chdb.query>[1]) =>
        sql.includes(LISTED_SINCE) && failures-- > 0 ? Promise.reject(new Error('connection reset')) : chdb.query<T>(sql, params),
    };
    const store = await ClickHouseEventStore.open(executor, `listed_${randomUUID().replaceAll('-', '')}`, log);
    try {
      expect((await store.listing()).since).toBe(Infinity);
      expect((await store.listing()).since).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('lists the copies among rows stored by SQL when asked (a bulk load)', () =>
    withStore(async (store) => {
      const site = 'bulk.example';
      const t = Date.now() - 5 * HOUR;
      await storedUnlisted(store, [pageview(site, 'a', t), pageview(site, 'a', t + HOUR), pageview(site, 'b', t)]);
      await store.listStoredIn(t - HOUR, t + 2 * HOUR);
      expect(await listed(store, site)).toEqual([['a', t + HOUR, false]]);
      expect(await pageviews(store, site, t, t + 2 * HOUR)).toBe(2);
    }));
});

describe('ClickHouse event store: the appends each batch lists with their page', () => {
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;
  const page = (site: string, id: string, ts: number, duration: number) => eventRow({ site, id, ts, kind: 'pageview', path: '/', bot: false, duration });
  const append = (site: string, id: string, page: string, ts: number, duration: number) => eventRow({ site, id, ts, kind: 'append', original_id: page, duration });
  /** Of the pages in [from, to) read from the rows (no rollup): how many have a duration, and how many last at least each of `at` seconds. */
  const engagement = async (store: ClickHouseEventStore, site: string, from: number, to: number, at: number[]) => {
    const e = await new ClickHouseReportStore(store, { rollups: false }).engagement({ site, registration: 'reg-contract', from, to, filters: [] }, at, []);
    return [e.measured, ...at.map((s) => e.durationAtLeast[s])];
  };
  const listedAppends = async (store: ClickHouseEventStore, site: string) =>
    (
      await store.executor.query<{ page_id: string; page_ts: number; id: string }>(
        `SELECT DISTINCT page_id, page_ts, id FROM ${store.database}.${LISTED_APPENDS} WHERE site = {site:String} ORDER BY page_ts, id`,
        { site },
      )
    ).map((r) => [r.page_id, Number(r.page_ts), r.id]);

  it('lists an append stored before its page under that page, again under an earlier page of its id that comes later, and counts it once when it is resent', () =>
    withStore(async (store) => {
      const site = 'appends.example';
      const t = Date.now() - 5 * HOUR;
      await store.saveEvents([append(site, 'a1', 'p', t + 10 * MINUTE, 20)]);
      expect(await listedAppends(store, site)).toEqual([]);
      await store.saveEvents([page(site, 'p', t, 5)]);
      expect(await listedAppends(store, site)).toEqual([['p', t, 'a1']]);
      expect(await engagement(store, site, t - HOUR, t + HOUR, [25, 26])).toEqual([1, 1, 0]);
      // The same page half an hour earlier: it is the page now, and the one at t its copy.
      await store.saveEvents([page(site, 'p', t - 30 * MINUTE, 7)]);
      expect(await listedAppends(store, site)).toEqual([
        ['p', t - 30 * MINUTE, 'a1'],
        ['p', t, 'a1'],
      ]);
      expect(await engagement(store, site, t - HOUR, t + HOUR, [27, 28])).toEqual([1, 1, 0]);
      // The append resent with an earlier ts: the one listed first is now its copy.
      await store.saveEvents([append(site, 'a1', 'p', t + 5 * MINUTE, 20)]);
      expect(await engagement(store, site, t - HOUR, t + HOUR, [27, 28])).toEqual([1, 1, 0]);
    }));

  it('reads the pages stored before its list began through the window, and those since from the list', () =>
    withStore(async (store) => {
      const site = 'appends-since.example';
      const since = Date.now() - 10 * HOUR;
      await store.executor.insert(`${store.database}.events`, [page(site, 'old', since - 2 * HOUR, 1), append(site, 'old-a', 'old', since - HOUR, 30)].map(storedRow));
      await store.executor.command(`INSERT INTO ${store.database}.${LISTED_APPENDS_SINCE} (since) VALUES ({since:Int64})`, { since });
      const reader = ClickHouseEventStore.attach(store.executor, store.database, log);
      expect((await reader.listing()).appendsSince).toBe(since);
      await reader.saveEvents([page(site, 'new', since + HOUR, 2), append(site, 'new-a', 'new', since + 2 * HOUR, 40)]);
      expect(await engagement(reader, site, since - 3 * HOUR, since + 3 * HOUR, [31, 42, 43])).toEqual([2, 2, 1, 0]);
    }));

  it('lists the appends among rows stored by SQL when asked (a bulk load)', () =>
    withStore(async (store) => {
      const site = 'appends-bulk.example';
      const t = Date.now() - 5 * HOUR;
      await store.executor.insert(`${store.database}.events`, [page(site, 'p', t, 3), append(site, 'a', 'p', t + MINUTE, 9)].map(storedRow));
      expect(await engagement(store, site, t - HOUR, t + HOUR, [12])).toEqual([1, 0]);
      await store.listStoredIn(t - HOUR, t + HOUR);
      expect(await listedAppends(store, site)).toEqual([['p', t, 'a']]);
      expect(await engagement(store, site, t - HOUR, t + HOUR, [12])).toEqual([1, 1]);
    }));
});

afterAll(closeChdb);
