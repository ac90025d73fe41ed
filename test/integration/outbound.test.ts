/**
 * The outbound redirect `/r` over HTTP (issue 39): the real collector
 * handler, dynalite and DuckDB. A followed redirect records exactly one
 * `outbound` event naming the target's host (on the linking page when
 * Referer names one of the site's); refused targets record nothing; an
 * unverified or unknown site redirects only to its own host and records
 * nothing; DNT records nothing; a bot's click is not counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
let site: string;

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** GET /r without following the redirect. */
async function r(hostname: string, u: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}/r?${new URLSearchParams({ hostname, u })}`, { redirect: 'manual', headers: { 'user-agent': BROWSER, ...headers } });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** The site's outbound events, by target host, as the reports count them (bots out). */
async function outbound(h: string): Promise<Record<string, number>> {
  const rows = (await svc.req('GET', `/api/sites/${h}/events/outbound/metadata?key=host`, { token: owner })).json.values as { value: string; count: number }[];
  return Object.fromEntries(rows.map((v) => [v.value, v.count]));
}

/** Every row the store holds of the site's outbound events, bots included. */
const storedOutbound = async (h: string) =>
  Number((await (svc.node.runtime.duckdb as NonNullable<typeof svc.node.runtime.duckdb>).query<{ n: bigint }>(`SELECT count(*) AS n FROM events WHERE site = $site AND event = 'outbound'`, { site: h }))[0]?.n);

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('outbound-owner');
  site = await svc.site(owner, { prefix: 'outbound' });
  expect((await svc.req('PATCH', `/api/sites/${site}`, { token: owner, body: { redirect_hosts: ['Pay.Example'] } })).status).toBe(200);
});
afterAll(() => svc.stop());

describe('GET /r', () => {
  it('keeps the site’s redirect hosts normalized in its settings (shown in its setup), and refuses a bad list', async () => {
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json.redirect_hosts).toEqual(['pay.example']);
    const bad = await svc.req('PATCH', `/api/sites/${site}`, { token: owner, body: { redirect_hosts: ['not a host'] } });
    expect([bad.status, bad.json.error]).toEqual([400, 'redirect_hosts must be a list of at most 20 hostnames']);
  });

  it('redirects to the site, its subdomains and its listed hosts, recording one outbound event each, on the linking page', async () => {
    const followed = [`https://${site}/thanks`, `https://docs.${site}/a`, 'https://pay.example/checkout', 'https://pay.example/again'];
    for (const u of followed) {
      const res = await r(site, u, { referer: `https://${site}/pricing?plan=pro` });
      expect([res.status, res.location]).toEqual([302, u]);
    }
    const counts = await svc.until(() => outbound(site), (c) => Object.values(c).reduce((a, b) => a + b, 0) === 4);
    expect(counts).toEqual({ 'pay.example': 2, [site]: 1, [`docs.${site}`]: 1 });
    const paths = await (svc.node.runtime.duckdb as NonNullable<typeof svc.node.runtime.duckdb>).query<{ path: string }>(`SELECT DISTINCT path FROM events WHERE site = $site AND event = 'outbound'`, { site });
    expect(paths.map((p) => p.path)).toEqual(['/pricing']);
    const pages = (await svc.req('GET', `/api/sites/${site}/breakdown?dim=events`, { token: owner })).json.rows;
    expect(pages.find((p: { name: string }) => p.name === 'outbound')).toMatchObject({ value: 4 });
  });

  it('refuses every target off the list with 400 plain text and records nothing for them', async () => {
    const before = await storedOutbound(site);
    for (const u of ['//evil.example', 'https:evil.example', '/\\evil.example', `https://${site}@evil.example/`, 'https://evil%2Eexample/', 'javascript:alert(1)', 'https://evil.example/']) {
      const res = await r(site, u);
      expect([u, res.status, res.location, res.text]).toEqual([u, 400, null, 'redirect target not allowed']);
    }
    expect((await r(site, '')).text).toBe('u required');
    expect((await r('', 'https://example.com/')).text).toBe('hostname required');
    expect(await storedOutbound(site)).toBe(before);
  });

  it('sends an unverified or unknown site’s clicks to its own host only, and records nothing', async () => {
    const unverified = await svc.site(owner, { prefix: 'outbound-new', verify: false });
    await svc.req('PATCH', `/api/sites/${unverified}`, { token: owner, body: { redirect_hosts: ['pay.example'] } });
    expect((await r(unverified, `https://${unverified}/x`)).status).toBe(302);
    expect((await r(unverified, 'https://pay.example/')).status).toBe(400);
    expect((await r('nobody-registered.example', 'https://nobody-registered.example/')).status).toBe(302);
    expect((await r('nobody-registered.example', 'https://pay.example/')).status).toBe(400);
    // Beacons show within 2 s: what would have been stored is by then.
    await new Promise((done) => setTimeout(done, 2500));
    expect(await storedOutbound(unverified)).toBe(0);
    expect(await storedOutbound('nobody-registered.example')).toBe(0);
  });

  it('records nothing under DNT, and a bot’s click as a bot (not counted)', async () => {
    const quiet = await svc.site(owner, { prefix: 'outbound-dnt' });
    expect((await r(quiet, `https://${quiet}/a`, { dnt: '1' })).status).toBe(302);
    expect((await r(quiet, `https://${quiet}/b`, { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' })).status).toBe(302);
    expect((await r(quiet, `https://${quiet}/c`)).status).toBe(302);
    await svc.until(() => storedOutbound(quiet), (n) => n === 2);
    expect(await svc.until(() => outbound(quiet), (c) => Object.keys(c).length > 0)).toEqual({ [quiet]: 1 });
  });
});
