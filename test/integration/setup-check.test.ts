/**
 * GET …/setup for a first run: the script tag to copy, and why recent beacons for the site
 * (or its near variants, or a page on localhost) stored nothing. Real HTTP, real collector.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_PAGE, startTestService, unique, type TestService } from '../support/local-node.ts';

let svc: TestService;
let alice: string;
let bob: string;

beforeAll(async () => {
  svc = await startTestService();
  alice = await svc.token('setup-alice');
  bob = await svc.token('setup-bob');
});
afterAll(() => svc.stop());

const setup = (h: string, token = alice) => svc.req('GET', `/api/sites/${h}/setup`, { token });
const beacon = (hostname: string) => svc.req('POST', '/events', { raw: JSON.stringify({ hostname, path: '/', ua: 'Mozilla/5.0', timezone: 'Europe/Berlin' }) });
const drop = (hostname: string, reason: string, count: number) => ({
  hostname,
  reason,
  count,
  first_at: expect.stringMatching(/^\d{4}-/),
  last_at: expect.stringMatching(/^\d{4}-/),
  advice: expect.any(String),
});

describe('the snippet', () => {
  it('is a script tag that verifies the site when copied onto its home page', async () => {
    const h = await svc.site(alice, { verify: false });
    const { snippet, local_snippet } = (await setup(h)).json;
    expect(snippet).toBe(`<script async src="${svc.url}/latest.js"></script>`);
    expect(local_snippet).toBe(`<script async src="${svc.url}/latest.js" data-hostname="${h}"></script>`);
    svc.setPage(h, `<!doctype html><html><head>${snippet}</head><body>hi</body></html>`);
    const r = await svc.req('POST', `/api/sites/${h}/verify`, { token: alice });
    expect([r.json.verified_at, r.json.verification.method]).toEqual([expect.stringMatching(/^\d{4}-/), 'script']);
  });

  it('is null for an API-only site', async () => {
    const h = await svc.site(alice, { kind: 'api', verify: false });
    expect((await setup(h)).json).toMatchObject({ snippet: null, local_snippet: null });
  });
});

describe('recent drops', () => {
  it("counts the beacons of the site's www. twin, its forms with a port and its unverified state, with advice", async () => {
    const h = await svc.site(alice, { verify: false });
    svc.setPage(h, PLAIN_PAGE);
    for (const hostname of [`www.${h}`, `www.${h}`, `${h}:8080`, `${h.toUpperCase()}:8080`, h, h, h]) expect((await beacon(hostname)).text).toBe('ok');
    const { recent_drops } = (await setup(h)).json;
    expect(recent_drops).toEqual([drop(h, 'unverified', 3), drop(`${h}:8080`, 'invalid_hostname', 2), drop(`www.${h}`, 'unknown_site', 2)]);
    const advice = Object.fromEntries(recent_drops.map((d: { hostname: string; advice: string }) => [d.hostname, d.advice]));
    expect(advice[h]).toContain(`POST /api/sites/${h}/verify`);
    expect(advice[`${h}:8080`]).toContain(`send ${h} without the port`);
    expect(advice[`www.${h}`]).toContain(`data-hostname="${h}"`);
  });

  it('finds the apex from the www. site, and leaves out hostnames that are not near the site', async () => {
    const apex = unique('apex');
    const h = `www.${apex}`;
    expect((await svc.req('POST', '/api/sites', { token: alice, body: { hostname: h } })).status).toBe(201);
    await beacon(apex);
    await beacon(`other.${apex}`);
    expect((await setup(h)).json.recent_drops).toEqual([drop(apex, 'unknown_site', 1)]);
  });

  it('does not show the drops of a twin registered to another account', async () => {
    const h = await svc.site(alice, { verify: false });
    expect((await svc.req('POST', '/api/sites', { token: bob, body: { hostname: `www.${h}` } })).status).toBe(201);
    svc.setPage(`www.${h}`, PLAIN_PAGE);
    await beacon(`www.${h}`);
    expect((await setup(h)).json.recent_drops).toEqual([]);
    expect((await setup(`www.${h}`, bob)).json.recent_drops).toEqual([drop(`www.${h}`, 'unverified', 1)]);
  });

  it('shows every owner the drops of pages on localhost, telling them to add data-hostname', async () => {
    const h = await svc.site(alice);
    for (const hostname of ['localhost', 'localhost', '127.0.0.1', 'localhost:3000']) expect((await beacon(hostname)).text).toBe('ok');
    const { local_drops, recent_drops } = (await setup(h)).json;
    expect(recent_drops).toEqual([]);
    expect(local_drops).toEqual([
      drop('localhost', 'invalid_hostname', 2),
      drop('127.0.0.1', 'invalid_hostname', 1),
      drop('localhost:3000', 'invalid_hostname', 1),
    ]);
    for (const d of local_drops) expect(d.advice).toContain(`add data-hostname="${h}" to the script tag`);
    const other = await svc.site(bob);
    expect((await setup(other, bob)).json.local_drops).toHaveLength(3);
  });

  it('counts nothing for stored beacons', async () => {
    const h = await svc.site(alice);
    expect((await beacon(h)).text).toBe('ok');
    expect((await setup(h)).json.recent_drops).toEqual([]);
  });
});
