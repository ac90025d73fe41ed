/**
 * The export's page reads (issue 42), the same suite against DuckDB and
 * ClickHouse (chDB): only the allow-listed columns (never the visitor hash or
 * the session id), one site's registration, the window and the (ts, id)
 * cursor, and every row once in order when the domain's pages walk a range
 * (many rows at one millisecond included); for events and API requests.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbApiRequests } from '#adapters/duckdb/duckdb-api-requests.ts';
import { DuckDbRowExport } from '#adapters/duckdb/duckdb-row-export.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseApiRequests } from '#adapters/clickhouse/clickhouse-api-requests.ts';
import { ClickHouseRowExport } from '#adapters/clickhouse/clickhouse-row-export.ts';
import { EXPORT_COLUMNS } from '#domain/export/columns.ts';
import { exportPages } from '#domain/export/pages.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { RowExportStore } from '#ports/row-export.ts';
import { chdbExecutor, closeChdb } from '../support/chdb-executor.ts';
import { eventRow } from './event-store.contract.ts';
import { log } from '#platform/log.ts';
import { S3RowExport } from '#adapters/s3-events/s3-row-export.ts';
import { startLocalS3 } from '../support/s3-events.ts';

interface Opened {
  events: EventStore;
  api: ApiRequestStore;
  exports: RowExportStore;
  /** DuckDB: move the rows so far into the compacted table (the view reads both). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export const EXPORT_STORES: readonly { name: string; open(): Promise<Opened> }[] = [
  {
    name: 'DuckDB',
    async open() {
      const events = await DuckDbEventStore.open(':memory:', { log });
      const api = await DuckDbApiRequests.open(events);
      const exports = new DuckDbRowExport(events.instance);
      return { events, api, exports, settle: () => events.compact(), close: async () => (exports.close(), await api.close(), await events.close()) };
    },
  },
  {
    name: 'ClickHouse (chDB)',
    async open() {
      const db = `export_${randomUUID().replaceAll('-', '')}`;
      const events = await ClickHouseEventStore.open(chdbExecutor(), db, log);
      return { events, api: new ClickHouseApiRequests(events.executor, db), exports: new ClickHouseRowExport(events.executor, db), settle: async () => {}, close: () => events.close() };
    },
  },
  {
    // As `npm start` with S3_EVENTS_URL: the events on S3, the API requests in the DuckDB file.
    name: 'S3 (s3rver, dynalite)',
    async open() {
      const duckdb = await DuckDbEventStore.open(':memory:', { log });
      const api = await DuckDbApiRequests.open(duckdb);
      const apiExports = new DuckDbRowExport(duckdb.instance);
      const local = await startLocalS3();
      const s3 = await local.open();
      const exports = new S3RowExport(await s3.mirror(), apiExports);
      return {
        events: await s3.writer(),
        api,
        exports,
        settle: async () => {},
        close: async () => (await local.close(), apiExports.close(), await api.close(), await duckdb.close()),
      };
    },
  },
];

const T0 = Date.UTC(2026, 2, 2);
const SITE = { site: 'export.example', registration: 'reg-export' };
const HASH = 'f00dfeedf00dfeedf00dfeedf00dfeed';
const ev = (ts: number, id: string, over: Partial<EventRow> = {}): EventRow =>
  eventRow({ ...SITE, ts, id, visitor: HASH, session_id: 'session-secret', path: `/p/${id}`, ...over });
const req = (ts: number, id: string, over: Partial<ApiRequestRow> = {}): ApiRequestRow => ({
  ...SITE, ts, id, method: 'GET', route: '/users/{id}', status: 200, duration_ms: 12.5, bytes_in: null, bytes_out: 512, consumer: 'mobile', ...over,
});

// 30 rows at one millisecond (more than a page of 7), a spread of others, and rows outside the scope.
const crowded = Array.from({ length: 30 }, (_, i) => ev(T0 + 5_000, `crowd-${String(i).padStart(2, '0')}`));
const spread = Array.from({ length: 40 }, (_, i) => ev(T0 + i * 3_600_000 + 7, `s-${i}`, { kind: i % 3 === 0 ? 'event' : 'pageview', event: i % 3 === 0 ? 'signup' : null, bot: i === 4 }));
const outside = [ev(T0 + 1_000, 'other-reg', { registration: 'reg-old' }), ev(T0 + 1_000, 'other-site', { site: 'other.example' }), ev(T0 - 1, 'before')];
const byTsId = (a: { ts: number; id: string }, b: { ts: number; id: string }) => a.ts - b.ts || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const expected = [...crowded, ...spread].sort(byTsId);
const range = { from: T0, to: T0 + 40 * 3_600_000 };

for (const under of EXPORT_STORES) {
  describe(`row export: ${under.name}`, () => {
    let s: Opened;

    beforeAll(async () => {
      s = await under.open();
      await s.events.saveEvents([...spread.slice(0, 20), ...outside]);
      await s.settle();
      await s.events.saveEvents([...crowded, ...spread.slice(20)]);
      await s.api.saveApiRequests([req(T0 + 10, 'r-2', { status: 503, consumer: null }), req(T0 + 10, 'r-1'), req(T0 + 20, 'r-3'), req(T0 + 20, 'r-x', { registration: 'reg-old' })]);
    });
    afterAll(async () => {
      await s.close();
      if (under.name.startsWith('ClickHouse')) closeChdb();
    });

    it('reads only the allow-listed columns of events: no visitor hash, no session id, no registration', async () => {
      const rows = await s.exports.exportPage('events', SITE, { from: range.from, to: range.to, after: null, limit: 3 });
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(Object.keys(row).sort()).toEqual(EXPORT_COLUMNS.events.map((c) => c.stored).sort());
      const values = rows.flatMap((r) => Object.values(r).map(String));
      expect(values).not.toContain(HASH);
      expect(values).not.toContain('session-secret');
    });

    it('answers a window after a cursor in (ts, id) order, at most the limit, of the site’s registration only', async () => {
      const page = await s.exports.exportPage('events', SITE, { from: T0, to: T0 + 5_001, after: { ts: T0 + 5_000, id: 'crowd-03' }, limit: 5 });
      expect(page.map((r) => [Number(r.ts), r.id])).toEqual(['crowd-04', 'crowd-05', 'crowd-06', 'crowd-07', 'crowd-08'].map((id) => [T0 + 5_000, id]));
      const first = await s.exports.exportPage('events', SITE, { from: T0, to: T0 + 5_000, after: null, limit: 100 });
      expect(first.map((r) => r.id)).toEqual(['s-0']);
    });

    it('walks a range in pages of 7: every row once, in (ts, id) order, with its values', async () => {
      const seen: Record<string, unknown>[] = [];
      for await (const page of exportPages((p) => s.exports.exportPage('events', SITE, p), range, 7)) {
        expect(page.length).toBeLessThanOrEqual(7);
        seen.push(...page);
      }
      expect(seen.map((r) => [Number(r.ts), r.id])).toEqual(expected.map((r) => [r.ts, r.id]));
      const signup = seen.find((r) => r.id === 's-3') as Record<string, unknown>;
      expect([signup.kind, signup.event, signup.path, Boolean(signup.bot), Boolean(signup.imported)]).toEqual(['event', 'signup', '/p/s-3', false, false]);
      expect(Boolean(seen.find((r) => r.id === 's-4')?.bot)).toBe(true);
    });

    it('counts the rows of a range of the registration, for either series', async () => {
      expect(await s.exports.exportCount('events', SITE, range)).toBe(expected.length);
      expect(await s.exports.exportCount('events', SITE, { from: T0 + 5_000, to: T0 + 5_001 })).toBe(30);
      expect(await s.exports.exportCount('api', SITE, { from: T0, to: T0 + 1_000 })).toBe(3);
    });

    it('reads the API-requests series: its columns, in (ts, id) order, of the registration', async () => {
      const rows = await s.exports.exportPage('api', SITE, { from: T0, to: T0 + 1_000, after: null, limit: 10 });
      expect(rows.map((r) => r.id)).toEqual(['r-1', 'r-2', 'r-3']);
      for (const row of rows) expect(Object.keys(row).sort()).toEqual(EXPORT_COLUMNS.api.map((c) => c.stored).sort());
      const r2 = rows[1] as Record<string, unknown>;
      expect([Number(r2.ts), r2.method, r2.route, Number(r2.status), Number(r2.duration_ms), r2.bytes_in, Number(r2.bytes_out), r2.consumer]).toEqual([T0 + 10, 'GET', '/users/{id}', 503, 12.5, null, 512, null]);
    });
  });
}
