/**
 * Secret share links over HTTP (issue 40, part 5): the real handlers on
 * dynalite and DuckDB. The owner's list, create and revoke with the access
 * matrix; reads through a link of a private site (the same answers as the
 * owner's, never edge-cached); passwords, grants and the guess limit; the
 * limits, the site delete, the embed allow-list and the dashboard edge's
 * framing headers; and no slug, password or grant in the logs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registrationKey } from '#domain/registration.ts';
import { row } from '../contract/report-store.contract.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
let stranger: string;
const OWNER = 'share-owner';

const statusAndError = (r: { status: number; json: { error?: string } }) => [r.status, r.json?.error];
const shares = (h: string) => `/api/sites/${h}/shares`;
const range = () => `from=${Math.floor(Date.now() / 1000) - 3 * 86_400}&to=${Math.floor(Date.now() / 1000)}`;

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token(OWNER);
  stranger = await svc.token('share-stranger');
});
afterAll(() => svc.stop());

async function seed(h: string, paths: string[]) {
  const at = Math.floor(Date.now() / 1000) - 86_400;
  await svc.node.runtime.events.saveEvents(paths.map((path, i) => ({ ...row(h, at + i, { path, visitor: `v${i}` }), registration: registrationKey(OWNER, h) })));
}

async function create(h: string, body: unknown = {}) {
  const r = await svc.req('POST', shares(h), { token: owner, body });
  expect(r.status).toBe(201);
  return r.json as { id: string; slug: string; share_path: string; embed_path: string; label: string; password: boolean; created_at: string };
}

/** Waits until the minute has 15 s left at least, so a count of guesses stays in one window. */
async function earlyInMinute() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 100));
}

describe('the owner’s share links', () => {
  it('are created (slug shown once), listed without slugs, and revoked; a revoked link reads 404 at once', async () => {
    const h = await svc.site(owner, { prefix: 'share-crud' });
    const made = await create(h, { label: ' Investors ' });
    expect(made).toEqual({
      id: expect.any(String),
      label: 'Investors',
      password: false,
      created_at: expect.any(String),
      slug: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      share_path: `/share/link/${made.slug}`,
      embed_path: `/embed/${made.slug}`,
    });
    const list = await svc.req('GET', shares(h), { token: owner });
    expect(list.json).toEqual({ shares: [{ id: made.id, label: 'Investors', password: false, created_at: made.created_at }] });
    expect(list.text).not.toContain(made.slug);
    expect((await svc.req('GET', `/api/share/${made.slug}`)).json).toEqual({ hostname: h, display_name: '', label: 'Investors', password: false });
    expect((await svc.req('DELETE', `${shares(h)}/${made.id}`, { token: owner })).json).toEqual({ revoked: made.id });
    expect(statusAndError(await svc.req('GET', `/api/share/${made.slug}/overview`))).toEqual([404, 'unknown share link']);
    expect(statusAndError(await svc.req('DELETE', `${shares(h)}/${made.id}`, { token: owner }))).toEqual([404, 'unknown share link']);
    expect(statusAndError(await svc.req('DELETE', `${shares(h)}/not-a-uuid`, { token: owner }))).toEqual([404, 'unknown share link']);
  });

  it('are the owner’s alone: anonymous and other accounts get 404, keys need read or manage', async () => {
    const h = await svc.site(owner, { prefix: 'share-access' });
    await svc.req('PATCH', `/api/sites/${h}`, { token: owner, body: { is_public: true } });
    const made = await create(h);
    expect(statusAndError(await svc.req('GET', shares(h)))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('GET', shares(h), { token: stranger }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('POST', shares(h), { token: stranger, body: {} }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('DELETE', `${shares(h)}/${made.id}`, { token: stranger }))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('POST', shares(h), { body: {} }))).toEqual([401, 'sign in required']);
    const reader = await svc.key(owner, ['read']);
    expect((await svc.req('GET', shares(h), { token: reader.key })).status).toBe(200);
    expect(statusAndError(await svc.req('POST', shares(h), { token: reader.key, body: {} }))).toEqual([403, 'scope manage required']);
    const manager = await svc.key(owner, ['manage']);
    expect((await svc.req('POST', shares(h), { token: manager.key, body: {} })).status).toBe(201);
  });

  it('refuse bad input, unverified sites and a 21st link with clear texts', async () => {
    const h = await svc.site(owner, { prefix: 'share-bad' });
    const bad = async (body: unknown) => statusAndError(await svc.req('POST', shares(h), { token: owner, body }));
    expect(await bad('nope')).toEqual([400, 'invalid share link']);
    expect(await bad({ label: 7 })).toEqual([400, 'label must be text of at most 100 characters']);
    expect(await bad({ label: 'x'.repeat(101) })).toEqual([400, 'label must be text of at most 100 characters']);
    expect(await bad({ password: 'short' })).toEqual([400, 'password must be 8 to 200 characters']);
    expect(await bad({ password: 12345678 })).toEqual([400, 'password must be 8 to 200 characters']);
    const raw = await svc.req('POST', shares(h), { token: owner, raw: '{"label":' });
    expect(raw.status).toBe(400);
    const pending = await svc.site(owner, { prefix: 'share-pending', verify: false });
    expect(statusAndError(await svc.req('POST', shares(pending), { token: owner, body: {} }))).toEqual([400, 'verify domain ownership before sharing the site']);
    for (let i = 0; i < 20; i++) await create(h, { label: `l${i}` });
    expect(await bad({})).toEqual([400, 'share link limit reached: at most 20 per site; revoke one first']);
  });

  it('go with their site: a site delete removes them', async () => {
    const h = await svc.site(owner, { prefix: 'share-delete' });
    const made = await create(h);
    expect((await svc.req('DELETE', `/api/sites/${h}`, { token: owner })).status).toBe(200);
    expect(statusAndError(await svc.req('GET', `/api/share/${made.slug}`))).toEqual([404, 'unknown share link']);
    await svc.site(owner, { prefix: 'share-delete-again' });
    expect(await svc.node.services.registry.shares.links.list(h)).toEqual([]);
  });
});

describe('reads through a link', () => {
  it('answer a private site’s reports as the owner gets them, no-store, and nothing owner-only', async () => {
    const h = await svc.site(owner, { prefix: 'share-read' });
    await seed(h, ['/a', '/a', '/b']);
    const { slug } = await create(h);
    const q = range();
    // What moves with the clock between two reads: the running bucket's forecast and the live count.
    const steady = (body: Record<string, unknown>) => ({ ...body, live: 0, forecast: null });
    for (const [report, query] of [['overview', ''], ['overview/summary', '&limit=3'], ['breakdown', '&dim=pages'], ['retention', '']] as const) {
      const own = await svc.req('GET', `/api/sites/${h}/${report}?${q}${query}`, { token: owner });
      const shared = await svc.req('GET', `/api/share/${slug}/${report}?${q}${query}`);
      expect([shared.status, shared.headers.get('cache-control')]).toEqual([200, 'no-store']);
      expect(steady(shared.json)).toEqual(steady(own.json));
    }
    const pages = await svc.req('GET', `/api/share/${slug}/breakdown?dim=pages&${q}`);
    expect(pages.json.rows.map((r: { name: string; value: number }) => [r.name, r.value])).toEqual([['/a', 2], ['/b', 1]]);
    expect(statusAndError(await svc.req('GET', `/api/sites/${h}/overview`))).toEqual([404, 'unknown site']);
    expect(statusAndError(await svc.req('GET', `/api/share/${slug}/breakdown?dim=nope`))).toEqual([400, 'unknown dimension']);
    expect(statusAndError(await svc.req('GET', `/api/share/${slug}/overview?tz=Mars/Base`))).toEqual([400, 'invalid timezone']);
    expect(statusAndError(await svc.req('GET', `/api/share/${slug}/overview?filter=goal:00000000-0000-4000-8000-000000000000`))).toEqual([400, 'invalid filter']);
    for (const unknown of ['x', 'A'.repeat(24), `${slug}x`, '%00']) expect(statusAndError(await svc.req('GET', `/api/share/${unknown}/overview`))).toEqual([404, 'unknown share link']);
  });

  it('with a password need a grant from the right password; the password is never stored', async () => {
    const h = await svc.site(owner, { prefix: 'share-pw' });
    const made = await create(h, { password: 'correct horse' });
    expect(made.password).toBe(true);
    const [stored] = await svc.node.services.registry.shares.links.list(h);
    expect(stored?.password_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(JSON.stringify(stored)).not.toContain('correct horse');
    const required = [401, 'password required: unlock this share link with its password first'];
    expect(statusAndError(await svc.req('GET', `/api/share/${made.slug}`))).toEqual(required);
    expect(statusAndError(await svc.req('GET', `/api/share/${made.slug}/overview`))).toEqual(required);
    const unlock = (body: unknown, slug = made.slug) => svc.req('POST', `/api/share/${slug}/unlock`, { body });
    expect(statusAndError(await unlock({ password: 'wrong horse' }))).toEqual([401, 'wrong password for this share link']);
    expect(statusAndError(await unlock({}))).toEqual([400, 'password must be given as text: {"password": "…"}']);
    const ok = await unlock({ password: 'correct horse' });
    expect([ok.status, ok.json]).toEqual([200, { grant: expect.any(String), expires_at: expect.any(String) }]);
    expect(Date.parse(ok.json.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    const headers = { 'X-Share-Grant': ok.json.grant };
    expect((await svc.req('GET', `/api/share/${made.slug}/overview`, { headers })).status).toBe(200);
    expect((await svc.req('GET', `/api/share/${made.slug}`, { headers })).json).toMatchObject({ hostname: h, password: true });
    // A grant is its link's alone, and a changed one holds nothing.
    const second = await create(h, { password: 'correct horse' });
    expect(statusAndError(await svc.req('GET', `/api/share/${second.slug}/overview`, { headers }))).toEqual(required);
    const forged = `${ok.json.grant.slice(0, -2)}AA`;
    expect(statusAndError(await svc.req('GET', `/api/share/${made.slug}/overview`, { headers: { 'X-Share-Grant': forged } }))).toEqual(required);
    const [id] = String(ok.json.grant).split('.');
    const later = `${id}.${Math.floor(Date.now() / 1000) + 86_400 * 365}.${String(ok.json.grant).split('.')[2]}`;
    expect(statusAndError(await svc.req('GET', `/api/share/${made.slug}/overview`, { headers: { 'X-Share-Grant': later } }))).toEqual(required);
    const open = await create(h);
    expect(statusAndError(await unlock({ password: 'anything at all' }, open.slug))).toEqual([400, 'this share link has no password']);
  });

  it('count 10 password guesses a minute per link, then 429 with Retry-After, the right password too', async () => {
    const h = await svc.site(owner, { prefix: 'share-guess' });
    const made = await create(h, { password: 'correct horse' });
    const other = await create(h, { password: 'correct horse' });
    await earlyInMinute();
    const unlock = (password: string, slug = made.slug) => svc.req('POST', `/api/share/${slug}/unlock`, { body: { password } });
    for (let i = 0; i < 10; i++) expect((await unlock(`guess number ${i}`)).status).toBe(401);
    const limited = await unlock('correct horse');
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatch(/^rate limited, retry in \d+s$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await unlock('correct horse', other.slug)).status).toBe(200);
  });

  it('never put a slug, password or grant in the logs', async () => {
    const lines: string[] = [];
    const spies = (['log', 'error', 'warn', 'info'] as const).map((m) => vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(' '))));
    try {
      const h = await svc.site(owner, { prefix: 'share-log' });
      const made = await create(h, { password: 'sekrit password' });
      await svc.req('POST', `/api/share/${made.slug}/unlock`, { body: { password: 'wrong password' } });
      const ok = await svc.req('POST', `/api/share/${made.slug}/unlock`, { body: { password: 'sekrit password' } });
      await svc.req('GET', `/api/share/${made.slug}/overview?${range()}`, { headers: { 'X-Share-Grant': ok.json.grant } });
      await svc.req('GET', `/share/link/${made.slug}`);
      const logged = lines.join('');
      expect(logged).toContain('/api/share/{slug}/unlock');
      for (const secret of [made.slug, 'sekrit password', 'wrong password', ok.json.grant]) expect(logged).not.toContain(secret);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('embedding', () => {
  it('takes at most 10 normalized https origins and frames /embed/{slug} for them alone', async () => {
    const h = await svc.site(owner, { prefix: 'share-embed' });
    const { slug } = await create(h);
    const page = (path: string) => svc.req('GET', path);
    const refused = await page(`/embed/${slug}`);
    expect([refused.status, refused.headers.get('x-frame-options')]).toEqual([200, 'DENY']);
    expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const patch = (embed_origins: unknown) => svc.req('PATCH', `/api/sites/${h}`, { token: owner, body: { embed_origins } });
    const text = 'embed_origins must be a list of at most 10 https origins';
    for (const bad of ['https://a.example', ['http://a.example'], ['https://a.example/path'], ['*'], ['https://*.example'], ["https://a.example;script-src *"], ['https://u@a.example'], Array.from({ length: 11 }, (_, i) => `https://s${i}.example`)]) {
      expect(statusAndError(await patch(bad))).toEqual([400, text]);
    }
    expect((await patch(['https://Blog.Example.COM:443/', 'https://blog.example.com', 'http://localhost:3000'])).status).toBe(200);
    expect((await svc.req('GET', `/api/sites/${h}/setup`, { token: owner })).json.embed_origins).toEqual(['https://blog.example.com', 'http://localhost:3000']);
    const allowed = await page(`/embed/${slug}`);
    expect(allowed.headers.get('x-frame-options')).toBeNull();
    expect(allowed.headers.get('content-security-policy')).toMatch(/frame-ancestors https:\/\/blog\.example\.com http:\/\/localhost:3000$/);
    // Every other page keeps refusing to be framed, the share page of the same link included.
    for (const path of [`/share/link/${slug}`, `/share/${h}`, '/', `/embed/${'A'.repeat(24)}`]) {
      const r = await page(path);
      expect([r.status, r.headers.get('x-frame-options')]).toEqual([200, 'DENY']);
      expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
    expect((await patch([])).status).toBe(200);
    expect((await page(`/embed/${slug}`)).headers.get('x-frame-options')).toBe('DENY');
  });
});
