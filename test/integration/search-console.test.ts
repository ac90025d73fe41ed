/**
 * Search Console end to end over HTTP against the fake Google
 * (test/support/fake-google.ts): the consent flow with its single-use state
 * bound to the user, properties, link, sync with paging into the event store,
 * the stats, quota and permission errors, a revoked grant, unlink revoking
 * the grant, site delete removing the link, and no token in any answer or
 * log line.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeGoogle, type FakeGoogle, type FakeRow } from '../support/fake-google.ts';
import { startTestService, type Response, type TestService } from '../support/local-node.ts';

let google: FakeGoogle;
let svc: TestService;
let owner: string;
let site: string;
const answers: string[] = [];
const output: string[] = [];

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const req = async (method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<Response> => {
  const r = await svc.req(method, path, options);
  answers.push(r.text);
  return r;
};

/** Google's consent: the authorize URL answered by the fake's redirect, as a browser would follow it. */
async function consent(token: string, hostname: string): Promise<{ code: string; state: string }> {
  const start = await req('GET', `/api/import-oauth/google/start?hostname=${hostname}`, { token });
  expect(start.status).toBe(200);
  const r = await fetch(start.json.url, { redirect: 'manual' });
  const back = new URL(r.headers.get('location') as string);
  expect(back.origin + back.pathname).toBe('http://dashboard.test/account');
  return { code: back.searchParams.get('code') as string, state: back.searchParams.get('state') as string };
}

async function link(token: string, hostname: string): Promise<void> {
  const { code, state } = await consent(token, hostname);
  expect((await req('GET', `/api/import-oauth/google/callback?code=${encodeURIComponent(code)}&state=${state}`, { token })).status).toBe(200);
  expect((await req('POST', `/api/sites/${hostname}/gsc/link`, { token, body: { property: `https://${hostname}/` } })).status).toBe(200);
}

beforeAll(async () => {
  for (const stream of ['stdout', 'stderr'] as const) {
    const write = process[stream].write.bind(process[stream]);
    vi.spyOn(process[stream], 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      output.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write);
  }
  // The service logs through console (functions/platform/log.ts), which the test runner takes over before stdout.
  for (const level of ['log', 'info', 'warn', 'error'] as const) {
    const original = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      output.push(args.map(String).join(' '));
      original(...args);
    });
  }
  google = await startFakeGoogle('http://dashboard.test/account');
  svc = await startTestService(google.env);
  owner = await svc.token('gsc-owner');
  site = await svc.site(owner, { prefix: 'gsc' });
  google.properties.push({ siteUrl: `https://${site}/`, permissionLevel: 'siteOwner' }, { siteUrl: 'sc-domain:other.example', permissionLevel: 'siteFullUser' });
  const rows: FakeRow[] = [
    { date: day(-5), query: 'tinytrack', page: `https://${site}/`, country: 'deu', device: 'DESKTOP', clicks: 8, impressions: 40, position: 2 },
    { date: day(-4), query: 'tinytrack', page: `https://${site}/`, country: 'usa', device: 'MOBILE', clicks: 2, impressions: 60, position: 7 },
    { date: day(-4), query: 'analytics', page: `https://${site}/docs`, country: 'usa', device: 'MOBILE', clicks: 3, impressions: 200, position: 10 },
  ];
  // One day with more queries than a page holds (25,000): the sync must ask for the next page.
  for (let i = 0; i < 25_001; i++) rows.push({ date: day(-3), query: `q${i}`, page: `https://${site}/long`, country: 'fra', device: 'TABLET', clicks: 0, impressions: 1, position: 50 });
  google.rows.set(`https://${site}/`, rows);
});

afterAll(async () => {
  await svc.stop();
  await google.close();
  vi.restoreAllMocks();
});

describe('linking', () => {
  it('refuses the consent of another account, and a state used twice', async () => {
    const stranger = await svc.token('gsc-stranger');
    expect((await req('GET', `/api/import-oauth/google/start?hostname=${site}`, { token: stranger })).json).toEqual({ error: 'unknown site' });
    const { code, state } = await consent(owner, site);
    const wrong = await req('GET', `/api/import-oauth/google/callback?code=${code}&state=${state}`, { token: stranger });
    expect([wrong.status, wrong.json]).toEqual([400, { error: 'the Google sign-in expired or was already used: start again' }]);
    // The stranger used it up: the owner cannot replay it either.
    expect((await req('GET', `/api/import-oauth/google/callback?code=${code}&state=${state}`, { token: owner })).status).toBe(400);
  });

  it('finishes the consent, lists properties and links the chosen one', async () => {
    const { code, state } = await consent(owner, site);
    const done = await req('GET', `/api/import-oauth/google/callback?code=${encodeURIComponent(code)}&state=${state}`, { token: owner });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ hostname: site, link: { property: null, last_sync_at: null, last_error: null } });
    const props = await req('GET', `/api/sites/${site}/gsc/properties`, { token: owner });
    expect(props.json.properties).toEqual([
      { property: `https://${site}/`, permission: 'siteOwner' },
      { property: 'sc-domain:other.example', permission: 'siteFullUser' },
    ]);
    const unknown = await req('POST', `/api/sites/${site}/gsc/link`, { token: owner, body: { property: 'https://nope.example/' } });
    expect([unknown.status, unknown.json]).toEqual([400, { error: 'the Google account has no such Search Console property' }]);
    expect((await req('POST', `/api/sites/${site}/gsc/link`, { token: owner, body: {} })).json).toEqual({ error: 'property required' });
    const linked = await req('POST', `/api/sites/${site}/gsc/link`, { token: owner, body: { property: `https://${site}/` } });
    expect(linked.json.link.property).toBe(`https://${site}/`);
  });
});

describe('sync and stats', () => {
  it('pulls 16 months in windows, paging past 25,000 rows, and answers the stats', async () => {
    const r = await req('POST', `/api/sites/${site}/gsc/sync`, { token: owner });
    expect([r.status, r.json.link.last_error, r.json.complete]).toEqual([200, null, true]);
    expect(google.queries[0]?.body.startDate).toBe(day(-486));
    expect(google.queries.some((q) => q.body.startRow === 25_000 && (q.body.dimensions as string[]).includes('query'))).toBe(true);
    const stats = await req('GET', `/api/sites/${site}/gsc?from=${day(-6)}&to=${day(-1)}&dim=queries&limit=2`, { token: owner });
    expect(stats.json.rows).toEqual([
      { name: 'tinytrack', clicks: 10, impressions: 100, ctr: 0.1, position: 5 },
      { name: 'analytics', clicks: 3, impressions: 200, ctr: 0.015, position: 10 },
    ]);
    expect(stats.json.totals).toMatchObject({ clicks: 13, impressions: 300 + 25_001 });
    expect(stats.json.series.map((d: { date: string }) => d.date)).toEqual([day(-5), day(-4), day(-3)]);
    expect(stats.json.link).toMatchObject({ property: `https://${site}/`, last_error: null });
    const devices = await req('GET', `/api/sites/${site}/gsc?from=${day(-6)}&to=${day(-1)}&dim=devices`, { token: owner });
    expect(devices.json.rows.map((d: { name: string }) => d.name)).toEqual(['DESKTOP', 'MOBILE', 'TABLET']);
  });

  it('pulls the last three days again on the next sync', async () => {
    google.queries.length = 0;
    expect((await req('POST', `/api/sites/${site}/gsc/sync`, { token: owner })).status).toBe(200);
    expect(google.queries[0]?.body).toMatchObject({ startDate: day(-3), endDate: day(-1) });
  });

  it('refuses a bad range and an unknown dimension', async () => {
    expect((await req('GET', `/api/sites/${site}/gsc?from=2026-02-30`, { token: owner })).json).toEqual({ error: 'invalid range' });
    expect((await req('GET', `/api/sites/${site}/gsc?dim=keywords`, { token: owner })).json).toEqual({ error: 'unknown dimension' });
  });

  it('is owner-only on a public site: anonymous and another account get 404', async () => {
    expect((await req('PATCH', `/api/sites/${site}`, { token: owner, body: { is_public: true } })).status).toBe(200);
    expect((await req('GET', `/api/sites/${site}/gsc`)).json).toEqual({ error: 'unknown site' });
    expect((await req('GET', `/api/sites/${site}/gsc`, { token: await svc.token('gsc-stranger') })).json).toEqual({ error: 'unknown site' });
  });
});

describe('the daily sync', () => {
  it('is scheduled, and pulls every linked site with a property', async () => {
    google.queries.length = 0;
    expect(await svc.node.scheduler.runNamed('search-console-sync', new Date())).toBe(true);
    expect(google.queries.length).toBeGreaterThan(0);
    expect(new Set(google.queries.map((q) => q.property))).toEqual(new Set([`https://${site}/`]));
    expect((await req('GET', `/api/sites/${site}/gsc`, { token: owner })).json.link.last_error).toBeNull();
  });
});

describe("Google's failures", () => {
  it('backs off on 429 a bounded number of times, then answers and records the quota error', async () => {
    google.failNext(429, 100);
    const r = await req('POST', `/api/sites/${site}/gsc/sync`, { token: owner });
    expect([r.status, r.json]).toEqual([429, { error: 'the Search Console quota is used up, retry later' }]);
    google.failNext(429, 0);
    const stats = await req('GET', `/api/sites/${site}/gsc`, { token: owner });
    expect(stats.json.link.last_error).toBe('the Search Console quota is used up, retry later');
  });

  it('recovers when the quota comes back within the retries', async () => {
    google.failNext(429, 2);
    const r = await req('POST', `/api/sites/${site}/gsc/sync`, { token: owner });
    expect([r.status, r.json.link.last_error, r.json.complete]).toEqual([200, null, true]);
  });

  it('answers a permission error', async () => {
    google.failNext(403, 1);
    const r = await req('POST', `/api/sites/${site}/gsc/sync`, { token: owner });
    expect([r.status, r.json]).toEqual([403, { error: 'the Google account cannot read this Search Console property' }]);
  });

  it('marks a revoked grant and says to link again', async () => {
    const refresh = google.issued.filter((t) => t.startsWith('1//'));
    for (const t of refresh) await fetch(`${google.url}/revoke`, { method: 'POST', body: new URLSearchParams({ token: t }) });
    const r = await req('POST', `/api/sites/${site}/gsc/sync`, { token: owner });
    const text = 'the Google grant was revoked or has expired: link Search Console again';
    expect([r.status, r.json]).toEqual([409, { error: text }]);
    expect((await req('GET', `/api/sites/${site}/gsc`, { token: owner })).json.link.last_error).toBe(text);
  });
});

describe('unlink and site delete', () => {
  it('unlink revokes the grant at Google and removes the link; the figures stay', async () => {
    await link(owner, site);
    const before = google.revoked.size;
    const r = await req('DELETE', `/api/sites/${site}/gsc/link`, { token: owner });
    expect([r.status, r.json]).toEqual([200, { deleted: true }]);
    expect(google.revoked.size).toBe(before + 1);
    const stats = await req('GET', `/api/sites/${site}/gsc?from=${day(-6)}&to=${day(-1)}`, { token: owner });
    expect([stats.json.link, stats.json.totals.clicks]).toEqual([null, 13]);
    expect((await req('POST', `/api/sites/${site}/gsc/sync`, { token: owner })).json).toEqual({ error: 'Search Console is not linked to this site' });
  });

  it('site delete removes the link and its sealed token', async () => {
    const other = await svc.site(owner, { prefix: 'gsc-del' });
    google.properties.push({ siteUrl: `https://${other}/`, permissionLevel: 'siteOwner' });
    await link(owner, other);
    expect(await svc.node.services.registry.searchConsole.getLink(other)).not.toBeNull();
    expect((await req('DELETE', `/api/sites/${other}`, { token: owner })).status).toBe(200);
    expect(await svc.node.services.registry.searchConsole.getLink(other)).toBeNull();
  });
});

describe('tokens', () => {
  it("appear in no answer and no line of the server's output", () => {
    expect(google.issued.length).toBeGreaterThan(4);
    expect(output.length).toBeGreaterThan(0);
    const all = [...answers, ...output].join('\n');
    for (const t of google.issued) expect(all.includes(t), 'a token was leaked').toBe(false);
  });
});
