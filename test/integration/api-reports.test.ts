/**
 * The API reports over HTTP (real handlers, dynalite, DuckDB): the numbers of
 * a known dataset end to end, access (owner only, also for public sites), the
 * query's errors, and the sites summary's api_days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import { registrationKey } from '#domain/registration.ts';
import { bucketLatency, latencyBucket } from '#domain/api-requests/latency.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';

let svc: TestService;
let owner: string;
let site: string;

const H = 3_600_000;
/** Yesterday 00:00 UTC and the day before: whole past days, so the rollups answer them. */
const DAY1 = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000;
const answered = (exact: number) => bucketLatency(latencyBucket(exact));

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('api-owner');
  site = await svc.site(owner, { prefix: 'api-reports', kind: 'api', verify: false });
  const registration = registrationKey('api-owner', site);
  let n = 0;
  const row = (ts: number, method: string, route: string, status: number, duration_ms: number, consumer: string | null = null): ApiRequestRow => ({
    site, registration, ts, id: `q${++n}`, method, route, status, duration_ms, bytes_in: 10, bytes_out: 200, consumer,
  });
  // Day 1: four GET /items/{id} 200 of 10, 20, 30, 40 ms (consumer app), one 404 of 5 ms; day 2: POST /items 500 of 300 ms and 201 of 100 ms.
  // 7 requests, 4xx 1, 5xx 1, error rate 1/7 = 0.1429; sorted 5 10 20 30 40 100 300: p50 rank 4 → 30, p95 and p99 rank 7 → 300.
  await svc.node.runtime.adapters.apiRequests.saveApiRequests([
    ...[10, 20, 30, 40].map((d, i) => row(DAY1 + 2 * H + i * 60_000, 'GET', '/items/{id}', 200, d, 'app')),
    row(DAY1 + 3 * H, 'GET', '/items/{id}', 404, 5),
    row(DAY1 + 26 * H, 'POST', '/items', 500, 300, 'app'),
    row(DAY1 + 27 * H, 'POST', '/items', 201, 100),
  ]);
});
afterAll(() => svc.stop());

const range = { from: String(DAY1 / 1000), to: String(DAY1 / 1000 + 2 * 86_400) };
const get = (path: string, token: string | undefined, query: Record<string, string> = {}) =>
  svc.req('GET', `/api/sites/${site}/api/${path}?${new URLSearchParams({ ...range, ...query })}`, { token });

describe('API overview', () => {
  it('totals, error rate, percentiles, the previous period and a zero-filled daily series', async () => {
    const r = await get('overview', owner, { tz: 'UTC' });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.json.totals).toEqual({ requests: 7, client_errors: 1, server_errors: 1, error_rate: 0.1429, p50_ms: answered(30), p95_ms: answered(300), p99_ms: answered(300), bytes_out: 1400 });
    expect(r.json.previous).toEqual({ requests: 0, client_errors: 0, server_errors: 0, error_rate: null, p50_ms: null, p95_ms: null, p99_ms: null, bytes_out: 0 });
    expect(r.json.granularity).toBe('hour');
    expect(r.json.series).toHaveLength(48);
    expect(r.json.series.reduce((n: number, s: { requests: number }) => n + s.requests, 0)).toBe(7);
    expect(r.json.series[2]).toMatchObject({ t: DAY1 / 1000 + 7200, requests: 4, p50_ms: answered(20) });
    expect(r.json.previous_range).toEqual({ from: DAY1 / 1000 - 2 * 86_400, to: DAY1 / 1000 });
  });

  it('filters: route, status class, method and consumer; bad clauses are 400 invalid filter', async () => {
    const totals = async (filter: string) => (await get('overview', owner, { filter })).json.totals.requests;
    expect(await totals('route:%2Fitems')).toBe(2);
    expect(await totals('status:5xx')).toBe(1);
    expect(await totals('status!2xx')).toBe(2);
    expect(await totals('method:get')).toBe(5);
    expect(await totals('consumer:app;method:POST')).toBe(1);
    for (const filter of ['page:/x', 'status:5x', 'route~items', 'method:G E T', 'status:600x']) {
      expect(await get('overview', owner, { filter }).then((r) => [r.status, r.json])).toEqual([400, { error: 'invalid filter' }]);
    }
    expect(await get('overview', owner, { from: 'x' }).then((r) => [r.status, r.json])).toEqual([400, { error: 'invalid range' }]);
    expect(await get('overview', owner, { tz: 'Mars/Base' }).then((r) => [r.status, r.json])).toEqual([400, { error: 'invalid timezone' }]);
  });
});

describe('API breakdown', () => {
  it('rows by requests then name, with errors, rate and percentiles', async () => {
    const r = await get('breakdown', owner, { dim: 'routes' });
    expect(r.json.rows).toEqual([
      { name: '/items/{id}', requests: 5, server_errors: 0, error_rate: 0, p50_ms: answered(20), p95_ms: answered(40) },
      { name: '/items', requests: 2, server_errors: 1, error_rate: 0.5, p50_ms: answered(100), p95_ms: answered(300) },
    ]);
    expect((await get('breakdown', owner, { dim: 'statuses', limit: '2' })).json.rows.map((x: { name: string }) => x.name)).toEqual(['200', '201']);
    expect((await get('breakdown', owner, { dim: 'consumers' })).json.rows.map((x: { name: string; requests: number }) => [x.name, x.requests])).toEqual([['app', 5]]);
    expect((await get('breakdown', owner, { dim: 'methods' })).json.rows.map((x: { name: string; requests: number }) => [x.name, x.requests])).toEqual([['GET', 5], ['POST', 2]]);
    for (const dim of [undefined, 'pages', '']) {
      expect(await get('breakdown', owner, dim === undefined ? {} : { dim }).then((x) => [x.status, x.json])).toEqual([400, { error: 'unknown dimension' }]);
    }
  });
});

describe('access', () => {
  it('the owner and read keys only, also on a public site; a key is judged first', async () => {
    const read = await svc.key(owner, ['read']);
    const manage = await svc.key(owner, ['manage']);
    expect((await get('overview', read.key)).status).toBe(200);
    expect(await get('overview', manage.key).then((r) => [r.status, r.json])).toEqual([403, { error: 'scope read required' }]);
    expect(await get('overview', `tt_mk_${'1'.repeat(48)}`).then((r) => [r.status, r.json])).toEqual([401, { error: 'invalid or revoked management key' }]);
    expect(await get('overview', await svc.token('someone')).then((r) => [r.status, r.json])).toEqual([404, { error: 'unknown site' }]);
    expect(await get('overview', undefined).then((r) => [r.status, r.json])).toEqual([401, { error: 'sign in required' }]);
    expect(await get('overview', await svc.token('api-owner', -30)).then((r) => [r.status, r.json])).toEqual([401, { error: 'sign in required' }]);
    // A public website: anonymous readers get its web reports, never its API reports.
    const web = await svc.site(owner, { prefix: 'public-web' });
    expect((await svc.req('PATCH', `/api/sites/${web}`, { token: owner, body: { is_public: true } })).status).toBe(200);
    expect((await svc.req('GET', `/api/sites/${web}/overview`)).status).toBe(200);
    expect((await svc.req('GET', `/api/sites/${web}/api/overview`)).status).toBe(401);
    expect((await svc.req('GET', `/api/sites/${web}/api/breakdown?dim=routes`, { token: await svc.token('someone') })).json).toEqual({ error: 'unknown site' });
    expect((await svc.req('GET', `/api/sites/${web}/api/overview`, { token: owner })).status).toBe(200);
  });

  it('an unverified website: 403 for its owner', async () => {
    const pending = await svc.site(owner, { prefix: 'pending-web', verify: false });
    expect(await svc.req('GET', `/api/sites/${pending}/api/overview`, { token: owner }).then((r) => [r.status, r.json])).toEqual([
      403,
      { error: 'Install your tracking script to verify this site first' },
    ]);
  });
});

describe('sites summary', () => {
  it('API sites carry api_days: requests and 5xx per day', async () => {
    const r = await svc.req('GET', '/api/sites/summary', { token: owner });
    const item = r.json.sites.find((s: { hostname: string }) => s.hostname === site);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(item.api_days).toEqual([
      { day: day(DAY1), requests: 5, server_errors: 0 },
      { day: day(DAY1 + 86_400_000), requests: 2, server_errors: 1 },
    ]);
    expect(item.days).toEqual([]);
  });
});
