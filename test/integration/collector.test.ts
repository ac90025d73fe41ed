/**
 * Every collector rule end to end: real HTTP, real handlers, the in-process
 * queue and writer, rows read back from the real DuckDB file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PLAIN_PAGE, scriptPage, startTestService, type TestService } from '../support/local-node.ts';
import { FRESH_TABLE } from '#adapters/duckdb/duckdb-event-store.ts';
import { functionUrlEvent } from '../support/lambda-events.ts';

const CHROME = (n: number) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.${n}.0 Safari/537.36`;
let uaCounter = 0;
const ua = () => CHROME(++uaCounter);

let svc: TestService;
let owner: string;

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('collector-owner');
});
afterAll(() => svc.stop());

type Row = Record<string, unknown>;

/** Waits until the queue is drained, then reads the site's rows. */
async function rows(site: string): Promise<Row[]> {
  await svc.node.runtime.eventQueue.drain();
  return svc.node.runtime.duckdb!.query<Row>(`SELECT * FROM ${FRESH_TABLE} WHERE site = $site ORDER BY ts, rowid`, { site });
}

const post = (route: '/events' | '/append', body: unknown, headers: Record<string, string> = {}) =>
  svc.req('POST', route, { raw: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'user-agent': ua(), ...headers } });
const gif = (route: string, params: Record<string, string>, headers: Record<string, string> = {}, method = 'GET') =>
  svc.req(method, `${route}?${new URLSearchParams(params)}`, { headers: { 'user-agent': ua(), ...headers } });
const pv = (site: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post('/events', { hostname: site, path: '/', ua: ua(), timezone: 'Europe/Berlin', id: randomUUID(), ...extra }, headers);

describe('/latest.js', () => {
  it('serves the minified tracker with the script cache and collector CORS; other methods 400', async () => {
    const r = await svc.req('GET', '/latest.js', { headers: { origin: 'https://shop.example' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/javascript/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=300, stale-while-revalidate=3600');
    for (const h of ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age']) expect(r.headers.get(h), h).toBeTruthy();
    expect(r.text).toContain('/simple.gif');
    const head = await svc.req('HEAD', '/latest.js');
    expect([head.status, head.text]).toEqual([200, '']);
    for (const m of ['POST', 'PUT', 'DELETE']) expect((await svc.req(m, '/latest.js', { raw: '{}' })).status).toBe(400);
  });
});

describe('POST /events and /append', () => {
  it('stores a pageview with derived fields and answers 200 text ok', async () => {
    const site = await svc.site(owner, { prefix: 'pv' });
    const id = randomUUID();
    const r = await post('/events', {
      hostname: site.toUpperCase(), path: '/pricing', query: '?plan=pro', referrer: 'https://www.google.com/search?q=x', id, page_id: 'p1',
      ua: CHROME(1), timezone: 'Asia/Tokyo', unique: true, viewport_width: 800, language: 'ja', utm_medium: 'cpc', metadata: { plan: 'pro' },
    });
    expect([r.status, r.text, r.headers.get('content-type')]).toEqual([200, 'ok', 'text/plain; charset=utf-8']);
    const [row] = await rows(site);
    expect(row).toMatchObject({
      site, kind: 'pageview', id, path: '/pricing', query: '?plan=pro', referrer_host: 'google.com', source: 'Google', country: 'JP',
      browser: 'Chrome', os: 'Windows', device: 'desktop', language: 'ja', viewport_width: 800, unique: true, bot: false, imported: false,
      utm_medium: 'cpc', metadata: '{"plan":"pro"}', page_id: 'p1',
    });
    expect(row!.visitor).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(row!.ts)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('ignores Content-Type and refuses malformed, form-encoded and batch bodies with 400 text', async () => {
    const site = await svc.site(owner, { prefix: 'ct' });
    expect((await pv(site, { path: '/as-text' }, { 'content-type': 'text/plain;charset=UTF-8' })).status).toBe(200);
    for (const body of ['{"hostname":"x.example",', `hostname=${site}&path=/`, JSON.stringify([{ hostname: site }]), '', 'null', '42']) {
      const r = await post('/events', body, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(r.status, body).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    const bad = await post('/events', { hostname: site, path: 'nope' });
    expect([bad.status, bad.text]).toEqual([400, 'invalid path']);
    expect((await rows(site)).map((x) => x.path)).toEqual(['/as-text']);
  });

  it('accepts a body of exactly 64 KiB and refuses one byte more with 413', async () => {
    const site = await svc.site(owner, { prefix: 'size' });
    const make = (total: number) => {
      const head = JSON.stringify({ hostname: site, path: '/edge', id: randomUUID(), pad: '' });
      return head.slice(0, -2) + 'x'.repeat(total - head.length) + '"}';
    };
    const exact = make(64 * 1024);
    expect(Buffer.byteLength(exact)).toBe(65536);
    expect((await post('/events', exact)).status).toBe(200);
    const over = make(64 * 1024 + 1);
    const r = await post('/events', over);
    expect(r.status).toBe(413);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await rows(site)).map((x) => x.path)).toEqual(['/edge']);
  });

  it('answers a body past the server-wide 1 MiB cap with the same plain-text 413 as any oversize beacon', async () => {
    const site = await svc.site(owner, { prefix: 'huge' });
    const huge = JSON.stringify({ hostname: site, path: '/huge', pad: 'x'.repeat(2 * 1024 * 1024) });
    for (const route of ['/events', '/append'] as const) {
      const r = await post(route, huge);
      expect([r.status, r.text, r.headers.get('content-type')]).toEqual([413, 'payload too large', 'text/plain; charset=utf-8']);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
    expect(await rows(site)).toEqual([]);
  });

  it('stores appends linked by original_id, whatever type says', async () => {
    const site = await svc.site(owner, { prefix: 'append' });
    const parent = randomUUID();
    await pv(site, { id: parent, path: '/read' });
    await post('/append', { hostname: site, path: '/read', id: randomUUID(), original_id: parent, duration: 12.4, scrolled: 70, type: 'pageview' });
    const stored = await rows(site);
    expect(stored.map((x) => [x.kind, x.original_id, x.duration, x.scrolled])).toEqual([
      ['pageview', null, null, null],
      ['append', parent, 12, 70],
    ]);
  });

  it('stores custom events with normalized names; empty names store nothing', async () => {
    const site = await svc.site(owner, { prefix: 'events' });
    for (const event of ['Add to Cart', '--promo code--', '!!!', 'x'.repeat(300)]) {
      expect((await pv(site, { type: 'event', event })).text).toBe('ok');
    }
    await pv(site, { type: 'event', event: 'big', metadata: { long: 'y'.repeat(5000) } });
    const stored = await rows(site);
    expect(stored.map((x) => x.event)).toEqual(['Add_to_Cart', 'promo_code', 'x'.repeat(256), 'big']);
    expect(String(stored[3]!.metadata)).toHaveLength(4096);
  });
});

describe('DNT', () => {
  it('JSON routes: skips storage only after the body parsed; collect-dnt keeps it', async () => {
    const site = await svc.site(owner, { prefix: 'dnt' });
    expect((await pv(site, { path: '/dnt' }, { dnt: '1' })).text).toBe('ok');
    expect((await post('/events', '{broken', { dnt: '1' })).status).toBe(400);
    // A batch (or any JSON that is not one object) is malformed input, DNT or not.
    for (const body of [[{ hostname: site, path: '/batched' }], '"x"', 'null']) {
      const r = await post('/events', body, { dnt: '1' });
      expect([r.status, r.text]).toEqual([400, 'invalid body: expected one JSON object']);
    }
    // Parsed but invalid: DNT wins before validation.
    expect((await post('/events', { hostname: site, path: 'invalid' }, { 'x-do-not-track': '1' })).status).toBe(200);
    await pv(site, { path: '/opted-in', 'collect-dnt': true }, { 'x-do-not-track': '1' });
    await pv(site, { path: '/dnt-0' }, { dnt: '0' });
    expect((await rows(site)).map((x) => x.path)).toEqual(['/opted-in', '/dnt-0']);
  });

  it('image routes: skip before validation unless collect-dnt=true', async () => {
    const site = await svc.site(owner, { prefix: 'dntgif' });
    const skipped = await gif('/simple.gif', { path: 'not-valid' }, { dnt: '1' });
    expect([skipped.status, skipped.headers.get('content-type')]).toEqual([200, 'image/gif']);
    expect((await gif('/simple.gif', { path: 'not-valid', 'collect-dnt': 'true' }, { dnt: '1' })).status).toBe(400);
    await gif('/simple.gif', { hostname: site, path: '/kept', 'collect-dnt': 'true' }, { dnt: '1' });
    expect((await rows(site)).map((x) => x.path)).toEqual(['/kept']);
  });
});

describe('image beacons', () => {
  it('simple.gif stores the payload from the query; no hostname is 400 text; HEAD records nothing', async () => {
    const site = await svc.site(owner, { prefix: 'gif' });
    const r = await gif('/simple.gif', { hostname: site, path: '/gallery', type: 'event', event: 'Sign up', metadata: JSON.stringify({ plan: 'pro' }), timezone: 'Europe/Paris' });
    expect([r.status, r.headers.get('content-type'), r.headers.get('access-control-allow-origin')]).toEqual([200, 'image/gif', '*']);
    const missing = await gif('/simple.gif', { path: '/gallery' });
    expect([missing.status, missing.text]).toEqual([400, 'invalid hostname']);
    expect((await gif('/simple.gif', { hostname: site, path: '/head' }, {}, 'HEAD')).status).toBe(200);
    expect((await svc.req('POST', '/simple.gif')).status).toBe(400);
    const stored = await rows(site);
    expect(stored.map((x) => [x.kind, x.event, x.path, x.metadata, x.country])).toEqual([['event', 'Sign_up', '/gallery', '{"plan":"pro"}', 'FR']]);
  });

  it('noscript.gif takes hostname, path, https and query from Referer; explicit parameters win, even empty ones', async () => {
    const site = await svc.site(owner, { prefix: 'nojs' });
    expect((await gif('/noscript.gif', {}, { referer: `https://${site}/pricing/team?plan=pro` })).status).toBe(200);
    await gif('/noscript.gif', { path: '/explicit', query: '' }, { referer: `http://${site}/from-referer?x=1` });
    const stored = await rows(site);
    expect(stored.map((x) => [x.path, x.https, x.query, x.referrer])).toEqual([
      ['/pricing/team', true, '?plan=pro', null],
      ['/explicit', false, '', null],
    ]);
    expect((await gif('/noscript.gif', {})).status).toBe(400);
  });
});

describe('fail closed', () => {
  it('stores nothing for unknown, unregistrable or unverified hostnames and still answers ok', async () => {
    const pending = await svc.site(owner, { prefix: 'pending', verify: false });
    svc.setPage(pending, PLAIN_PAGE);
    for (const hostname of ['never-registered.example', '192.0.2.1', 'bad host', pending]) {
      const r = await post('/events', { hostname, path: '/' });
      expect([r.status, r.text], hostname).toEqual([200, 'ok']);
    }
    expect(await rows(pending)).toEqual([]);
    expect(await rows('never-registered.example')).toEqual([]);
  });

  it('stores nothing when the registry lookup fails', async () => {
    const site = await svc.site(owner, { prefix: 'outage' });
    svc.node.services.siteCache.delete(site);
    const registry = svc.node.services.registry;
    const original = registry.getSite.bind(registry);
    registry.getSite = async () => {
      throw new Error('registry down');
    };
    try {
      expect((await pv(site)).text).toBe('ok');
    } finally {
      registry.getSite = original;
    }
    expect(await rows(site)).toEqual([]);
  });

  it('verifies a site automatically when its page has the script, and stores that beacon', async () => {
    const site = await svc.site(owner, { prefix: 'auto', verify: false });
    svc.setPage(site, svc.scriptPage);
    await pv(site, { path: '/welcome' });
    const meta = await svc.req('GET', `/api/sites/${site}`, { token: owner });
    expect(meta.json.verified_at).toMatch(/^\d{4}-/);
    expect((await rows(site)).map((x) => x.path)).toEqual(['/welcome']);
    const setup = await svc.req('GET', `/api/sites/${site}/setup`, { token: owner });
    expect(setup.json.last_seen_at).toMatch(/^\d{4}-/);
  });

  it("does not verify automatically with another service's latest.js, stores nothing and records why", async () => {
    const site = await svc.site(owner, { prefix: 'borrowed', verify: false });
    svc.setPage(site, scriptPage('https://scripts.simpleanalyticscdn.com'));
    expect((await pv(site, { path: '/claimed' })).text).toBe('ok');
    expect(await rows(site)).toEqual([]);
    const setup = await svc.req('GET', `/api/sites/${site}/setup`, { token: owner });
    expect([setup.json.verified, setup.json.last_check]).toEqual([
      false,
      expect.objectContaining({ ok: false, reason: 'foreign_script', trigger: 'collect' }),
    ]);
  });

  it('checks a pending site at most every 15 s per instance', async () => {
    // An account of its own: the owner's explicit checks of this minute went to the other tests' sites.
    const laterOwner = await svc.token('collector-later-owner');
    const site = await svc.site(laterOwner, { prefix: 'later', verify: false });
    svc.setPage(site, PLAIN_PAGE);
    await pv(site, { path: '/one' });
    svc.setPage(site, svc.scriptPage);
    await pv(site, { path: '/two' });
    expect(await rows(site)).toEqual([]);
    expect((await svc.req('POST', `/api/sites/${site}/verify`, { token: laterOwner })).json.verified_at).toBeTruthy();
    await pv(site, { path: '/three' });
    expect((await rows(site)).map((x) => x.path)).toEqual(['/three']);
  });
});

describe('bots, replays and visitors', () => {
  it('stores bots flagged, by user agent or by the bot field', async () => {
    const site = await svc.site(owner, { prefix: 'bots' });
    await pv(site, { path: '/human' });
    await pv(site, { path: '/curl', ua: 'curl/8.5.0' });
    await pv(site, { path: '/field', bot: true });
    await post('/events', { hostname: site, path: '/header-ua' }, { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' });
    expect((await rows(site)).map((x) => [x.path, x.bot])).toEqual([
      ['/human', false],
      ['/curl', true],
      ['/field', true],
      ['/header-ua', true],
    ]);
  });

  it('suppresses a replayed id; a missing id gets a fresh one each time', async () => {
    const site = await svc.site(owner, { prefix: 'replay' });
    const id = randomUUID();
    await pv(site, { id });
    await pv(site, { id });
    const remembered = svc.node.services.resends.size;
    await post('/events', { hostname: site, path: '/no-id' });
    await post('/events', { hostname: site, path: '/no-id' });
    // A server-assigned id can never come again: remembering it would only push client ids out of the bounded cache.
    expect(svc.node.services.resends.size).toBe(remembered);
    const stored = await rows(site);
    expect(stored.filter((x) => x.id === id)).toHaveLength(1);
    expect(stored.filter((x) => x.path === '/no-id')).toHaveLength(2);
  });

  it('gives one visitor hash per IP and UA per day and site, taken from ua or the header', async () => {
    const site = await svc.site(owner, { prefix: 'visitors' });
    const a = CHROME(9001);
    await pv(site, { ua: a });
    await pv(site, { ua: a });
    await pv(site, { ua: CHROME(9002) });
    await post('/events', { hostname: site, path: '/' }, { 'user-agent': a });
    const hashes = (await rows(site)).map((x) => x.visitor);
    expect(hashes[0]).toBe(hashes[1]);
    expect(hashes[2]).not.toBe(hashes[0]);
    expect(hashes[3]).toBe(hashes[0]);
    const other = await svc.site(owner, { prefix: 'visitors2' });
    await pv(other, { ua: a });
    expect((await rows(other))[0]!.visitor).not.toBe(hashes[0]);
  });

  it('derives sources with campaign precedence, a known referring host by its name, and excludes internal navigation', async () => {
    const site = await svc.site(owner, { prefix: 'sources' });
    await pv(site, { referrer: 'https://news.ycombinator.com/item?id=1', utm_source: 'newsletter' });
    await pv(site, { referrer: 'https://news.ycombinator.com/item?id=1', ref: 'producthunt' });
    await pv(site, { referrer: 'https://news.ycombinator.com/item?id=1' });
    await pv(site, { referrer: `https://${site}/previous` });
    await pv(site, {});
    expect((await rows(site)).map((x) => [x.source, x.referrer_host])).toEqual([
      ['newsletter', 'news.ycombinator.com'],
      ['producthunt', 'news.ycombinator.com'],
      ['Hacker News', 'news.ycombinator.com'],
      [null, null],
      [null, null],
    ]);
  });
});

describe('Lambda Function URL', () => {
  const event = (method: string, url: string, body?: string, domainName?: string) =>
    functionUrlEvent({ method, url, body, sourceIp: '203.0.113.9', headers: { 'user-agent': 'Mozilla/5.0 Firefox/125.0' }, ...(domainName ? { domainName } : {}) });

  it('dispatches events that carry no route key by path, as a Function URL sends them', async () => {
    const { createCollectorHandler } = await import('#http/handlers/collector.ts');
    const handler = createCollectorHandler(svc.node.services);
    const site = await svc.site(owner, { prefix: 'furl' });
    const body = JSON.stringify({ hostname: site, path: '/from-function-url', ua: ua(), id: randomUUID() });
    const posted = await handler(event('POST', '/events', body), {} as never);
    expect([posted.statusCode, posted.body]).toEqual([200, 'ok']);
    expect((await handler(event('GET', '/latest.js'), {} as never)).statusCode).toBe(200);
    expect((await handler(event('GET', '/nowhere'), {} as never)).statusCode).toBe(404);
    expect((await rows(site)).map((x) => x.path)).toEqual(['/from-function-url']);
  });

  // The collector's own Function URL cannot be in its own environment (a CloudFormation cycle):
  // the domain Lambda received the beacon on serves latest.js, so it counts as a public origin.
  it('verifies automatically with latest.js from the domain the beacon arrived on, and only that one', async () => {
    const { createCollectorHandler } = await import('#http/handlers/collector.ts');
    const handler = createCollectorHandler(svc.node.services);
    const site = await svc.site(owner, { prefix: 'furl-verify', verify: false });
    svc.setPage(site, scriptPage('https://abc123.lambda-url.eu-west-1.on.aws'));
    // Another Function URL's domain does not count; nor would a Host header on the local server.
    const beacon = (path: string, domainName: string) =>
      handler(event('POST', '/events', JSON.stringify({ hostname: site, path, ua: ua() }), domainName), {} as never);
    await beacon('/elsewhere', 'other.lambda-url.eu-west-1.on.aws');
    expect(await rows(site)).toEqual([]);
    svc.node.services.verifyAttempts.delete(site);
    await beacon('/here', 'abc123.lambda-url.eu-west-1.on.aws');
    expect((await rows(site)).map((x) => x.path)).toEqual(['/here']);
  });
});
