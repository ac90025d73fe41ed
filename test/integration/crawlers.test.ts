/**
 * Crawler hits end to end (issue 41) against the fake Cloudflare API
 * (test/support/fake-cloudflare.ts): zones, link checks, a sync through a
 * rate limit, the hits read by crawler, page and category, a repeated sync
 * counting nothing twice, a revoked token's error, unlink, and a site delete
 * removing the link with its sealed token. Every response body and the
 * server's output are searched for the Cloudflare tokens used: none appears.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestService, type Response, type TestService } from '../support/local-node.ts';
import { startFakeCloudflare, type FakeCloudflare } from '../support/fake-cloudflare.ts';
import { crawlerSyncJob } from '#workers/crawler-sync.ts';

const TOKEN = 'cf-token-never-shown-9d2e7b4a1c';
const OTHER_TOKEN = 'cf-token-other-zone-5b8f0e3d2a';
const BAD_TOKEN = 'cf-token-invalid-77aa3c';
const ZONE = { id: '023e105f4ecef8ad9ca31a8372d0c353', name: 'crawled.example' };
const FOREIGN = { id: '9a7806061c88ada191ed06f989cc3dac', name: 'foreign.example' };
const H = 3_600_000;
const GPT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CLAUDE = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const GOOGLE = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let svc: TestService;
let cf: FakeCloudflare;
let owner: string;
let site: string;
const bodies: string[] = [];
const output: string[] = [];

async function req(method: string, path: string, options: Parameters<TestService['req']>[2] = {}): Promise<Response> {
  const r = await svc.req(method, path, options);
  bodies.push(r.text);
  return r;
}
const link = (hostname: string, body: unknown) => req('POST', `/api/sites/${hostname}/crawlers/link`, { token: owner, body });
const stats = (query = '') => req('GET', `/api/sites/${site}/crawlers?from=${Math.floor((Date.now() - 48 * H) / 1000)}${query}`, { token: owner });

beforeAll(async () => {
  // The server's log lines (functions/platform/log.ts writes them through console).
  for (const level of ['log', 'error', 'warn', 'info'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void output.push(args.map(String).join(' ')));
  }
  cf = await startFakeCloudflare();
  cf.addToken(TOKEN, [ZONE]);
  cf.addToken(OTHER_TOKEN, [FOREIGN]);
  const now = Date.now();
  cf.setGroups(ZONE.id, [
    { at: now - 2 * H, userAgent: GPT, path: '/', count: 5 },
    { at: now - 2 * H, userAgent: GPT, path: '/blog', count: 3 },
    { at: now - 1 * H, userAgent: CLAUDE, path: '/blog', count: 4 },
    { at: now - 1 * H, userAgent: GOOGLE, path: '/', count: 2 },
    { at: now - 1 * H, userAgent: CHROME, path: '/', count: 90 },
  ]);
  svc = await startTestService({ CLOUDFLARE_API_URL: cf.url });
  owner = await svc.token('crawler-owner');
  site = await svc.site(owner, { prefix: 'crawled' });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await svc.stop();
  await cf.stop();
});

describe('zones', () => {
  it('lists the zones a token reads, the token taken from X-Cloudflare-Token', async () => {
    const r = await req('GET', '/api/cloudflare/zones', { token: owner, headers: { 'x-cloudflare-token': TOKEN } });
    expect([r.status, r.json]).toEqual([200, { zones: [ZONE] }]);
  });

  it('refuses a missing header and an invalid token with 400', async () => {
    const none = await req('GET', '/api/cloudflare/zones', { token: owner });
    expect([none.status, none.json]).toEqual([400, { error: 'X-Cloudflare-Token header required' }]);
    const bad = await req('GET', '/api/cloudflare/zones', { token: owner, headers: { 'x-cloudflare-token': BAD_TOKEN } });
    expect([bad.status, bad.json]).toEqual([400, { error: 'Cloudflare returned 400: Invalid request headers' }]);
  });
});

describe('link and sync', () => {
  it('refuses a bad body, an invalid token and a zone the token cannot read, naming the cause', async () => {
    expect((await link(site, { zone_id: ZONE.id })).json).toEqual({ error: 'token is required' });
    expect((await link(site, { token: TOKEN, zone_id: 'nope' })).json).toEqual({ error: 'zone_id must be a Cloudflare zone id (32 hex characters)' });
    const invalid = await link(site, { token: BAD_TOKEN, zone_id: ZONE.id });
    expect([invalid.status, invalid.json]).toEqual([400, { error: 'Cloudflare returned 400: Invalid request headers' }]);
    const foreign = await link(site, { token: OTHER_TOKEN, zone_id: ZONE.id });
    expect([foreign.status, foreign.json]).toEqual([400, { error: 'Cloudflare returned 403: Unauthorized to access requested resource' }]);
    expect((await stats()).json.link).toBeNull();
  });

  it('links a zone the token reads, and shows the link without its token', async () => {
    const r = await link(site, { token: TOKEN, zone_id: ZONE.id });
    expect(r.status).toBe(200);
    expect(r.json.link).toMatchObject({ zone_id: ZONE.id, zone_name: ZONE.name, last_sync_at: null, last_error: null });
    expect((await stats()).json.link).toEqual(r.json.link);
  });

  it('syncs through a rate limit, and reads the hits by crawler, page and category (humans not counted)', async () => {
    cf.rateLimitNext(1);
    const r = await req('POST', `/api/sites/${site}/crawlers/sync`, { token: owner });
    expect([r.status, r.json.link.last_error]).toEqual([200, null]);
    expect(r.json.link.last_sync_at).not.toBeNull();
    const crawlers = await stats();
    expect(crawlers.json.rows).toEqual([
      { name: 'GPTBot', category: 'ai', hits: 8, pages: 2 },
      { name: 'ClaudeBot', category: 'ai', hits: 4, pages: 1 },
      { name: 'Googlebot', category: 'search', hits: 2, pages: 1 },
    ]);
    const days = crawlers.json.series as { ai: number; search: number; other: number }[];
    expect(days.reduce((n, d) => n + d.ai, 0)).toBe(12);
    expect(days.reduce((n, d) => n + d.search, 0)).toBe(2);
    expect((await stats('&dim=pages')).json.rows).toEqual([
      { name: '/', category: 'ai', hits: 7, pages: 1 },
      { name: '/blog', category: 'ai', hits: 7, pages: 1 },
    ]);
    expect((await stats('&dim=categories')).json.rows).toEqual([
      { name: 'ai', category: 'ai', hits: 12, pages: 2 },
      { name: 'search', category: 'search', hits: 2, pages: 1 },
    ]);
    const bad = await stats('&dim=browsers');
    expect([bad.status, bad.json]).toEqual([400, { error: 'unknown dimension' }]);
  });

  it('counts nothing twice when a sync reads the same hours again, also with a manage key', async () => {
    const { key } = await svc.key(owner, ['manage']);
    expect((await req('POST', `/api/sites/${site}/crawlers/sync`, { token: key })).status).toBe(200);
    expect((await stats('&dim=categories')).json.rows.map((r: { hits: number }) => r.hits)).toEqual([12, 2]);
  });

  it("records Cloudflare's error when the token stopped working", async () => {
    cf.addToken(TOKEN, []);
    const r = await req('POST', `/api/sites/${site}/crawlers/sync`, { token: owner });
    expect([r.status, r.json.link.last_error]).toEqual([200, `Cloudflare returned 200: zone '${ZONE.id}' does not have access to the path`]);
    expect((await stats()).json.link.last_error).toBe(r.json.link.last_error);
    cf.addToken(TOKEN, [ZONE]);
  });

  it('unlinks: the link is gone and a sync is refused with 409', async () => {
    const r = await req('DELETE', `/api/sites/${site}/crawlers/link`, { token: owner });
    expect([r.status, r.json]).toEqual([200, { link: null }]);
    expect((await stats()).json.link).toBeNull();
    const sync = await req('POST', `/api/sites/${site}/crawlers/sync`, { token: owner });
    expect([sync.status, sync.json]).toEqual([409, { error: 'no Cloudflare zone is linked to this site; link one first' }]);
  });
});

describe('the hourly sync', () => {
  it('reads every linked zone and records the outcome on each link', async () => {
    const second = await svc.site(owner, { prefix: 'crawled-hourly' });
    expect((await link(second, { token: TOKEN, zone_id: ZONE.id })).status).toBe(200);
    await crawlerSyncJob({ ...svc.node.services, crawlerLinks: svc.node.services.registry.crawlerLinks }).run(new Date());
    const r = await req('GET', `/api/sites/${second}/crawlers?from=${Math.floor((Date.now() - 48 * H) / 1000)}&dim=categories`, { token: owner });
    expect(r.json.rows.map((row: { name: string; hits: number }) => [row.name, row.hits])).toEqual([['ai', 12], ['search', 2]]);
    expect(r.json.link.last_sync_at).not.toBeNull();
  });
});

describe('site delete', () => {
  it('removes the link and its sealed token', async () => {
    const doomed = await svc.site(owner, { prefix: 'crawled-doomed' });
    expect((await link(doomed, { token: TOKEN, zone_id: ZONE.id })).status).toBe(200);
    expect(await svc.node.services.registry.crawlerLinks.get(doomed)).not.toBeNull();
    expect((await req('DELETE', `/api/sites/${doomed}`, { token: owner })).status).toBe(200);
    expect(await svc.node.services.registry.crawlerLinks.get(doomed)).toBeNull();
    expect((await svc.node.services.registry.crawlerLinks.list()).map((l) => l.site)).not.toContain(doomed);
  });
});

describe('the Cloudflare tokens', () => {
  it('appear in no response body and nowhere in the server output', () => {
    for (const token of [TOKEN, OTHER_TOKEN, BAD_TOKEN]) {
      expect(bodies.filter((b) => b.includes(token))).toEqual([]);
      expect(output.filter((line) => line.includes(token))).toEqual([]);
    }
    // The search saw the server's request log and Cloudflare got the token: the test could have found it.
    expect(output.join('')).toContain('/api/sites/{hostname}/crawlers/sync');
    expect(cf.requests.some((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });
});
