/**
 * History never passes to a new owner, end to end over HTTP: account A
 * registers a hostname, collects beacons, imports history and deletes the
 * site; account B registers the same hostname and, once verified by the
 * operator, sees none of A's rows in any report. A registering the hostname
 * again finds its own rows (spec part 3: collected and imported analytics
 * remain), and none of B's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { BREAKDOWN_DIMS } from '#domain/reports/query.ts';
import { startTestService, unique, type TestService } from '../support/local-node.ts';
import { PLAUSIBLE_API_KEY, generateDataset, startFakeSimpleAnalytics, type FakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';

const DAY = 86_400;
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const utcDay = (offset: number) => new Date(Date.now() + offset * DAY * 1000).toISOString().slice(0, 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let svc: TestService;
let sa: FakeSimpleAnalytics;

beforeAll(async () => {
  sa = await startFakeSimpleAnalytics();
  svc = await startTestService({ SIMPLEANALYTICS_BASE_URL: sa.url });
});
afterAll(async () => {
  await svc?.stop();
  await sa?.close();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Beacons of one visit (pageviews, an event, an append), landed in the store. */
async function collect(hostname: string, path: string): Promise<void> {
  const page = randomUUID();
  const beacons = [
    { hostname, path, id: page, unique: true, referrer: 'https://news.example/a', utm_source: 'mail', timezone: 'Europe/Berlin', language: 'de', screen_width: 1400 },
    { hostname, path: `${path}/next`, id: randomUUID(), timezone: 'Europe/Berlin' },
    { hostname, type: 'event', event: 'signup', path, id: randomUUID(), timezone: 'Europe/Berlin' },
  ];
  for (const b of beacons) expect((await svc.req('POST', '/events', { raw: JSON.stringify({ ua: CHROME, ...b }) })).text).toBe('ok');
  expect((await svc.req('POST', '/append', { raw: JSON.stringify({ hostname, ua: CHROME, id: randomUUID(), original_id: page, duration: 30, scrolled: 80 }) })).text).toBe('ok');
  await svc.node.runtime.eventQueue.drain();
}

/** Every report a reader of the site gets, for the last 30 days. */
async function reports(token: string, hostname: string): Promise<Json> {
  const to = Math.floor(Date.now() / 1000) + 60;
  const range = `from=${to - 30 * DAY}&to=${to}`;
  const read = async (path: string) => {
    const r = await svc.req('GET', `/api/sites/${hostname}/${path}`, { token });
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.json;
  };
  const summary = (await svc.req('GET', '/api/sites/summary', { token })).json.sites.find((s: Json) => s.hostname === hostname);
  return {
    overview: await read(`overview?${range}`),
    summary: await read(`overview/summary?${range}`),
    breakdowns: Object.fromEntries(await Promise.all(BREAKDOWN_DIMS.map(async (dim) => [dim, (await read(`breakdown?dim=${dim}&limit=1000&${range}`)).rows]))),
    retention: await read(`retention?${range}`),
    sites_summary: { live: summary.live, days: summary.days },
  };
}

/** Asserts that nothing at all is counted. */
function expectEmpty(r: Json): void {
  expect(r.overview.totals).toEqual({ pageviews: 0, visitors: 0, avg_duration_s: null, avg_scroll: null });
  expect(r.overview.series.every((b: Json) => b.pageviews === 0 && b.visitors === 0)).toBe(true);
  expect(r.overview.live).toBe(0);
  expect(r.summary).toEqual({
    events: { totals: { count: 0, visitors: 0 }, previous: { count: 0, visitors: 0 }, top: [] },
    tech: { devices: [], browsers: [], os: [] },
    live: { pages: [] },
  });
  for (const dim of BREAKDOWN_DIMS) expect(r.breakdowns[dim], dim).toEqual([]);
  expect(r.retention.pageviews_measured).toBe(0);
  expect(r.sites_summary).toEqual({ live: 0, days: [] });
}

async function waitForImport(token: string, hostname: string, id: string): Promise<Json> {
  for (let i = 0; i < 2_000; i++) {
    const job = (await svc.req('GET', `/api/sites/${hostname}/imports`, { token })).json.imports.find((j: Json) => j.id === id);
    if (job && !['queued', 'running'].includes(job.status)) return job;
    await sleep(25);
  }
  throw new Error('import did not finish');
}

describe("a hostname's history and its registrations", () => {
  it('shows account B none of account A\'s collected and imported rows, and gives A its own back when A registers again', { timeout: 120_000 }, async () => {
    const a = await svc.token('history-a');
    const b = await svc.token('history-b');
    const hostname = await svc.site(a, { prefix: 'history' });

    await collect(hostname, '/from-a');
    const source = `${unique('old')}`;
    sa.setData(source, generateDataset(utcDay(-10), utcDay(-1), 300, 40, 11));
    const created = await svc.req('POST', `/api/sites/${hostname}/imports`, {
      token: a,
      body: { source: 'simpleanalytics', range_start: utcDay(-10), range_end: utcDay(-1), config: { user_id: 'sa_user_id_1', api_key: PLAUSIBLE_API_KEY, source_hostname: source } },
    });
    expect(created.status, created.text).toBe(201);
    expect(await waitForImport(a, hostname, created.json.id)).toMatchObject({ status: 'succeeded', rows_skipped: 0 });
    const ownedByA = await reports(a, hostname);
    expect(ownedByA.overview.totals.pageviews).toBeGreaterThan(2);
    expect(ownedByA.breakdowns.pages.map((r: Json) => r.name)).toContain('/from-a');

    expect((await svc.req('DELETE', `/api/sites/${hostname}`, { token: a })).status).toBe(200);
    expect((await svc.req('POST', '/api/sites', { token: b, body: { hostname } })).status).toBe(201);
    // The operator's override (npm run admin -- verify-site).
    expect(await svc.node.services.registry.markVerified(hostname, new Date().toISOString())).toMatchObject({ owner_uid: 'history-b' });
    expectEmpty(await reports(b, hostname));

    // B's own beacons count for B, and only they do.
    svc.setPage(hostname, svc.scriptPage);
    await collect(hostname, '/from-b');
    const ownedByB = await reports(b, hostname);
    expect(ownedByB.overview.totals.pageviews).toBe(2);
    expect(ownedByB.breakdowns.pages.map((r: Json) => r.name).sort()).toEqual(['/from-b', '/from-b/next']);

    // B leaves; A registers the hostname again and finds its own history, without B's.
    expect((await svc.req('DELETE', `/api/sites/${hostname}`, { token: b })).status).toBe(200);
    expect((await svc.req('POST', '/api/sites', { token: a, body: { hostname } })).status).toBe(201);
    await svc.node.services.registry.markVerified(hostname, new Date().toISOString());
    const again = await reports(a, hostname);
    expect(again.overview.totals).toEqual(ownedByA.overview.totals);
    expect(again.breakdowns).toEqual(ownedByA.breakdowns);
    expect(again.retention).toEqual(ownedByA.retention);
  });

  it('does not skip as already imported what another account imported for the hostname before', { timeout: 120_000 }, async () => {
    const a = await svc.token('ledger-a');
    const b = await svc.token('ledger-b');
    const hostname = await svc.site(a, { prefix: 'ledger' });
    const source = `${unique('shared')}`;
    sa.setData(source, generateDataset(utcDay(-5), utcDay(-1), 120, 10, 12));
    const body = { source: 'simpleanalytics', range_start: utcDay(-5), range_end: utcDay(-1), config: { user_id: 'sa_user_id_1', api_key: PLAUSIBLE_API_KEY, source_hostname: source } };
    const first = await svc.req('POST', `/api/sites/${hostname}/imports`, { token: a, body });
    const byA = await waitForImport(a, hostname, first.json.id);
    expect(byA).toMatchObject({ status: 'succeeded', rows_skipped: 0 });
    const seenByA = (await reports(a, hostname)).overview.totals;
    expect(seenByA.pageviews).toBeGreaterThan(0);

    expect((await svc.req('DELETE', `/api/sites/${hostname}`, { token: a })).status).toBe(200);
    expect((await svc.req('POST', '/api/sites', { token: b, body: { hostname } })).status).toBe(201);
    await svc.node.services.registry.markVerified(hostname, new Date().toISOString());
    const second = await svc.req('POST', `/api/sites/${hostname}/imports`, { token: b, body });
    expect(second.status, second.text).toBe(201);
    expect(await waitForImport(b, hostname, second.json.id)).toMatchObject({ status: 'succeeded', rows_imported: byA.rows_imported, rows_skipped: 0 });
    // B's own import, counted once: A's copy of the same datapoints is not B's.
    expect((await reports(b, hostname)).overview.totals).toEqual(seenByA);
  });
});
