/**
 * The API-requests series, the same suite against every store that keeps it
 * (DuckDB, ClickHouse over chDB): idempotent saves, totals, percentiles,
 * breakdowns, filters, series in a timezone off UTC by half an hour, days,
 * and rollups answering as rows do. The dataset's numbers are worked out by
 * hand below.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbApiRequests } from '#adapters/duckdb/duckdb-api-requests.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseApiRequests } from '#adapters/clickhouse/clickhouse-api-requests.ts';
import { bucketLatency, exactPercentile, latencyBucket, LATENCY_RELATIVE_ERROR } from '#domain/api-requests/latency.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { ApiFilter, ApiRequestStore } from '#ports/api-request-store.ts';
import { planSummaryDays } from '#domain/reports/overview.ts';
import { chdbExecutor, closeChdb } from '../support/chdb-executor.ts';
import { log } from '#platform/log.ts';

export interface ApiStoreUnderTest {
  name: string;
  open(): Promise<{ store: ApiRequestStore; close(): Promise<void> }>;
}

export const API_STORES: readonly ApiStoreUnderTest[] = [
  {
    name: 'DuckDB',
    async open() {
      const events = await DuckDbEventStore.open(':memory:', { log });
      const store = await DuckDbApiRequests.open(events);
      return { store, close: async () => (await store.close(), await events.close()) };
    },
  },
  {
    name: 'ClickHouse (chDB)',
    async open() {
      const db = `api_${randomUUID().replaceAll('-', '')}`;
      const events = await ClickHouseEventStore.open(chdbExecutor(), db, log);
      return { store: new ClickHouseApiRequests(events.executor, db), close: () => events.close() };
    },
  },
];

const H = 3_600_000;
const D = 24 * H;
/** 2026-03-02 00:00 UTC, a Monday. */
const T0 = Date.UTC(2026, 2, 2);
const SITE = 'api.example.com';
const REG = 'reg-1';

let n = 0;
const req = (ts: number, method: string, route: string, status: number, duration_ms: number, extra: Partial<ApiRequestRow> = {}): ApiRequestRow => ({
  site: SITE,
  registration: REG,
  ts,
  id: `r${++n}`,
  method,
  route,
  status,
  duration_ms,
  bytes_in: null,
  bytes_out: 100,
  consumer: null,
  ...extra,
});

/**
 * Day 1 (T0 + 1 h 10 min … ): ten GET /users/{id} 200 of 10, 20, … 100 ms (consumer web),
 * one GET /users/{id} 404 of 5 ms, two POST /orders 500 of 200 and 400 ms (consumer mobile).
 * Day 2 (T0 + 25 h 40 min): one DELETE /orders 503 of 1000 ms.
 * 14 requests; 4xx: 1; 5xx: 3; bytes_out 14 × 100 = 1400.
 * Sorted durations: 5 10 20 30 40 50 60 70 80 90 100 200 400 1000.
 * Nearest rank: p50 → rank ⌈7⌉ = 7 → 60 ms; p95 → ⌈13.3⌉ = 14 → 1000; p99 → ⌈13.86⌉ = 14 → 1000.
 */
function dataset(): ApiRequestRow[] {
  const day1 = T0 + H + 10 * 60_000;
  const rows = Array.from({ length: 10 }, (_, i) => req(day1 + i * 60_000, 'GET', '/users/{id}', 200, 10 * (i + 1), { consumer: 'web' }));
  rows.push(req(day1 + 20 * 60_000, 'GET', '/users/{id}', 404, 5));
  rows.push(req(day1 + 30 * 60_000, 'POST', '/orders', 500, 200, { consumer: 'mobile' }));
  rows.push(req(day1 + 31 * 60_000, 'POST', '/orders', 500, 400, { consumer: 'mobile' }));
  rows.push(req(T0 + 25 * H + 40 * 60_000, 'DELETE', '/orders', 503, 1000));
  return rows;
}

/** The histogram's answer for an exact nearest-rank value: its bucket's middle, within the stated error. */
const answered = (exact: number) => bucketLatency(latencyBucket(exact));

describe.each(API_STORES)('API request store contract: $name', (under) => {
  let store: ApiRequestStore;
  let close: () => Promise<void>;
  const rows = dataset();
  const scope = (from: number, to: number, filters: ApiFilter[] = []) => ({ site: SITE, registration: REG, from, to, filters });

  beforeAll(async () => {
    ({ store, close } = await under.open());
    await store.saveApiRequests(rows);
    // A redelivery adds nothing; nor does another registration's row of the hostname.
    await store.saveApiRequests(rows.slice(0, 5));
    await store.saveApiRequests([{ ...req(T0 + 2 * H, 'GET', '/x', 500, 1), registration: 'reg-old' }]);
  });
  afterAll(async () => {
    await close();
    closeChdb();
  });

  it('totals over whole days (rollups): counts, errors, bytes and the nearest-rank percentiles', async () => {
    const t = await store.apiTotals(scope(T0, T0 + 2 * D));
    expect(t).toEqual({ requests: 14, client_errors: 1, server_errors: 3, bytes_out: 1400, p50_ms: answered(60), p95_ms: answered(1000), p99_ms: answered(1000) });
  });

  it('percentiles are within the stated error of the exact ones', async () => {
    const t = await store.apiTotals(scope(T0, T0 + 2 * D));
    const durations = rows.map((r) => r.duration_ms);
    for (const [p, got] of [[0.5, t.p50_ms], [0.95, t.p95_ms], [0.99, t.p99_ms]] as const) {
      const exact = exactPercentile(durations, p) as number;
      expect(Math.abs((got as number) - exact)).toBeLessThanOrEqual(LATENCY_RELATIVE_ERROR * (1 + exact));
    }
  });

  it('a range cutting hours (rows at the edges) counts exactly the requests inside it', async () => {
    // [T0 + 1 h 15 min, T0 + 25 h 40 min): the GETs of 60 … 100 ms (5), the 404, both POSTs; the DELETE is at the end bound, excluded.
    const t = await store.apiTotals(scope(T0 + H + 15 * 60_000, T0 + 25 * H + 40 * 60_000));
    expect(t.requests).toBe(8);
    expect(t.server_errors).toBe(2);
    expect(t.client_errors).toBe(1);
    // Sorted: 5 60 70 80 90 100 200 400; p50 rank 4 → 80.
    expect(t.p50_ms).toBe(answered(80));
  });

  it('filters: route, method, exact status, status class, consumer, and not-equals', async () => {
    const all = (filters: ApiFilter[]) => store.apiTotals(scope(T0, T0 + 2 * D, filters)).then((t) => t.requests);
    expect(await all([{ dim: 'route', op: 'eq', value: '/orders' }])).toBe(3);
    expect(await all([{ dim: 'method', op: 'eq', value: 'GET' }])).toBe(11);
    expect(await all([{ dim: 'status', op: 'eq', value: '404' }])).toBe(1);
    expect(await all([{ dim: 'status', op: 'eq', value: '5xx' }])).toBe(3);
    expect(await all([{ dim: 'status', op: 'neq', value: '5xx' }])).toBe(11);
    expect(await all([{ dim: 'consumer', op: 'eq', value: 'mobile' }])).toBe(2);
    // Two clauses: rows only. POST /orders: 2.
    expect(await all([{ dim: 'route', op: 'eq', value: '/orders' }, { dim: 'method', op: 'eq', value: 'POST' }])).toBe(2);
    // One clause over a range that cuts days: rollup days and rows agree with the two-clause path.
    expect(await all([{ dim: 'route', op: 'neq', value: '/orders' }])).toBe(11);
  });

  it('breakdowns: by requests, then name; errors and percentiles per row; empty consumers left out', async () => {
    const routes = await store.apiBreakdown(scope(T0, T0 + 2 * D), 'routes', 10);
    // /users/{id}: 11 requests, sorted 5 10 … 100: p50 rank 6 → 50, p95 rank ⌈10.45⌉ = 11 → 100. /orders: 200 400 1000: p50 rank 2 → 400, p95 rank 3 → 1000.
    expect(routes).toEqual([
      { name: '/users/{id}', requests: 11, server_errors: 0, p50_ms: answered(50), p95_ms: answered(100) },
      { name: '/orders', requests: 3, server_errors: 3, p50_ms: answered(400), p95_ms: answered(1000) },
    ]);
    const statuses = await store.apiBreakdown(scope(T0, T0 + 2 * D), 'statuses', 10);
    expect(statuses.map((r) => [r.name, r.requests])).toEqual([['200', 10], ['500', 2], ['404', 1], ['503', 1]]);
    const consumers = await store.apiBreakdown(scope(T0, T0 + 2 * D), 'consumers', 1);
    expect(consumers.map((r) => [r.name, r.requests])).toEqual([['web', 10]]);
    // Filtered by another dimension (rows): methods of /orders.
    const methods = await store.apiBreakdown(scope(T0, T0 + 2 * D, [{ dim: 'route', op: 'eq', value: '/orders' }]), 'methods', 10);
    expect(methods.map((r) => [r.name, r.requests])).toEqual([['POST', 2], ['DELETE', 1]]);
    // A range cutting the first day: the rows before T0 + 1 h 15 min are left out.
    const cut = await store.apiBreakdown(scope(T0 + H + 15 * 60_000, T0 + 2 * D), 'routes', 10);
    expect(cut.map((r) => [r.name, r.requests])).toEqual([['/users/{id}', 6], ['/orders', 3]]);
  });

  it('series: groups by the boundaries given, also boundaries half an hour off the hour (Asia/Kolkata days)', async () => {
    // Kolkata midnight is 18:30 UTC the day before: [T0 − 5.5 h, T0 + 18.5 h) holds the 13 day-1 requests, the next day the DELETE.
    const k0 = T0 - 5.5 * H;
    const series = await store.apiSeries({ site: SITE, registration: REG, filters: [], boundaries: [k0, k0 + D, k0 + 2 * D] });
    expect(series.map((s) => [s.bucket, s.requests, s.server_errors])).toEqual([[0, 13, 2], [1, 1, 1]]);
    // Hour buckets: 01:00–02:00 UTC holds 10 GETs at 01:10 … 01:19 and the 404 at 01:30, then the POSTs at 01:40, 01:41.
    const hours = await store.apiSeries({ site: SITE, registration: REG, filters: [], boundaries: [T0 + H, T0 + H + 30 * 60_000, T0 + 2 * H] });
    expect(hours.map((s) => [s.bucket, s.requests])).toEqual([[0, 10], [1, 3]]);
  });

  it('series of many groups (spans joined, not inlined): twelve hours, the day-1 requests in the second', async () => {
    const boundaries = Array.from({ length: 13 }, (_, i) => T0 + i * H);
    const series = await store.apiSeries({ site: SITE, registration: REG, filters: [], boundaries });
    expect(series.map((s) => [s.bucket, s.requests, s.server_errors])).toEqual([[1, 13, 2]]);
    // The same boundaries shifted by half an hour: every group cut, rows only, the requests split at 01:30.
    const shifted = await store.apiSeries({ site: SITE, registration: REG, filters: [], boundaries: boundaries.map((b) => b + H / 2) });
    expect(shifted.map((s) => [s.bucket, s.requests])).toEqual([[0, 10], [1, 3]]);
  });

  it('days: sparse requests and 5xx per day of the plan', async () => {
    const plan = planSummaryDays((T0 + 2 * D) / 1000, 'UTC');
    const days = await store.apiDays([{ site: SITE, registration: REG }], plan);
    expect(days.get(SITE)).toEqual([
      { day: '2026-03-02', requests: 13, server_errors: 2 },
      { day: '2026-03-03', requests: 1, server_errors: 1 },
    ]);
  });
});

describe.each(API_STORES)('API request store: a batch whose first rows lack a consumer keeps the later ones ($name)', (under) => {
  it('stores every consumer label', async () => {
    const { store, close } = await under.open();
    try {
      const now = Date.UTC(2026, 5, 1, 12);
      const rows = [null, 'mobile', null, 'web'].map((consumer, i) => ({ ...req(now + i, 'GET', '/c', 200, 1), consumer, site: 'c.example', bytes_out: null }));
      await store.saveApiRequests(rows);
      const consumers = await store.apiBreakdown({ site: 'c.example', registration: REG, from: now - H, to: now + H, filters: [] }, 'consumers', 10);
      expect(consumers.map((r) => r.name)).toEqual(['mobile', 'web']);
    } finally {
      await close();
    }
  });
});
