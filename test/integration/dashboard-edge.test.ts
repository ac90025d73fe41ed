/**
 * The dashboard on the local server, over HTTP: which paths give the page,
 * its assets and headers, what stays the API's 404, and the one-time trade of
 * a login link for an ID token (real dynalite behind the links).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDashboardSessions, DynamoLoginLinks } from '#adapters/dynamodb/login-links.ts';
import { itemTable } from '#adapters/dynamodb/item-table.ts';
import { sessionHash } from '#domain/dashboard-session.ts';
import { INVALID_LOGIN_LINK, LOGIN_LINK_TTL_SECONDS, loginCodeHash, newLoginCode } from '#domain/login-link.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const ROOT = join(import.meta.dirname, '..', '..');
let svc: TestService;
let links: DynamoLoginLinks;
beforeAll(async () => {
  svc = await startTestService();
  links = new DynamoLoginLinks(itemTable(svc.node.runtime.store, svc.node.services.config.tableName));
});
afterAll(async () => {
  await svc?.stop();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

async function link(sub: string, ttl = LOGIN_LINK_TTL_SECONDS): Promise<string> {
  const code = newLoginCode();
  await links.create(loginCodeHash(code), sub, nowSeconds() + ttl);
  return code;
}

const SESSION = { 'x-tinytrack-session': '1' };
const trade = (code: unknown) => svc.req('POST', '/dashboard/login', { body: { code }, headers: SESSION });
/** The session cookie a sign-in set: its value and its attributes. */
const cookieOf = (r: { headers: Headers }) => r.headers.get('set-cookie') ?? '';
const sessionOf = (r: { headers: Headers }) => /tt_session=([^;]*)/.exec(cookieOf(r))?.[1] ?? '';
const renew = (session: string, headers: Record<string, string> = SESSION) => svc.req('POST', '/dashboard/session', { headers: { ...headers, cookie: `tt_session=${session}` } });

describe('dashboard pages and assets', () => {
  it('answers the page at the paths it routes, with a strict CSP and no caching', async () => {
    for (const path of ['/', '/login', '/account', '/sites/example.com', '/sites/example.com/settings', '/share/example.com']) {
      const r = await svc.req('GET', path);
      expect([path, r.status, r.headers.get('content-type')]).toEqual([path, 200, 'text/html; charset=utf-8']);
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(r.text).toContain('<div id="app">');
    }
  });

  it('serves the hashed script and style for good, and says how owners sign in', async () => {
    const page = (await svc.req('GET', '/')).text;
    const script = /src="(\/dashboard\/app-[A-Z0-9]+\.js)"/.exec(page)?.[1];
    const style = /href="(\/dashboard\/app-[A-Z0-9]+\.css)"/.exec(page)?.[1];
    const js = await svc.req('GET', script!);
    expect([js.status, js.headers.get('content-type'), js.headers.get('cache-control')]).toEqual([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable']);
    expect((await svc.req('GET', style!)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const config = await svc.req('GET', '/dashboard/config.json');
    expect([config.status, config.json]).toEqual([200, { signIn: { type: 'local' } }]);
  });

  it('leaves every other path to the API: 404 not found', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/api/nope'],
      ['GET', '/sites'],
      ['GET', '/sites/a/b/c'],
      ['GET', '/dashboard/app-XXXX.js'],
      ['POST', '/'],
      ['DELETE', '/sites/example.com'],
    ] as const) {
      const r = await svc.req(method, path);
      expect([method, path, r.status, r.json]).toEqual([method, path, 404, { error: 'not found' }]);
    }
  });
});

describe('a page that does not exist', () => {
  it('is the dashboard’s own page with status 404 for a browser, and stays the API’s JSON 404 for anything else', async () => {
    const browser = await svc.req('GET', '/no-such-page', { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect([browser.status, browser.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect(browser.text).toContain('<div id="app">');
    expect(browser.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    for (const [path, accept] of [
      ['/no-such-page', 'application/json'],
      ['/api/no-such-route', 'text/html'],
    ]) {
      const r = await svc.req('GET', path as string, { headers: { accept: accept as string } });
      expect([path, r.status, r.json]).toEqual([path, 404, { error: 'not found' }]);
    }
  });
});

describe('login links', () => {
  it('trades a link once for a session cookie and a short-lived ID token of its user', async () => {
    const code = await link('link-user');
    const first = await trade(code);
    expect(first.status).toBe(200);
    expect(first.json.expires_in).toBe(900);
    expect(cookieOf(first)).toMatch(/^tt_session=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=2592000; HttpOnly; SameSite=Strict$/);
    const me = await svc.req('GET', '/api/me', { token: first.json.id_token });
    expect([me.status, me.json.uid, me.json.auth]).toEqual([200, 'link-user', 'id_token']);
    const second = await trade(code);
    expect([second.status, second.json]).toEqual([400, { error: INVALID_LOGIN_LINK }]);
  });

  it('refuses an expired link, an unknown code and a malformed body alike', async () => {
    const expired = await link('late-user', -1);
    for (const code of [expired, newLoginCode(), 'short', 42, undefined]) {
      const r = await trade(code);
      expect([r.status, r.json]).toEqual([400, { error: INVALID_LOGIN_LINK }]);
    }
    const raw = await svc.req('POST', '/dashboard/login', { raw: '{not json', headers: SESSION });
    expect(raw.status).toBe(400);
    // Without the page's header (a form or link of another site): no trade, the link kept.
    const code = await link('header-user');
    const bare = await svc.req('POST', '/dashboard/login', { body: { code } });
    expect([bare.status, bare.json]).toEqual([401, { error: 'sign in required' }]);
    expect((await trade(code)).status).toBe(200);
  });

  it('two trades of one link at once give one token', async () => {
    const code = await link('race-user');
    const results = await Promise.all([trade(code), trade(code), trade(code)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });
});

describe('npm run admin -- login-link', () => {
  const admin = (dataDir: string) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/tt.ts', 'admin', 'login-link', 'cli-user'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, PORT: '1' } });

  it('prints a link to the running server found through DATA_DIR, whatever PORT says', async () => {
    const { stdout } = await admin(svc.dataDir);
    expect(stdout.trim()).toMatch(new RegExp(`^${svc.url}/login#code=[A-Za-z0-9_-]{43}$`));
    const code = /code=(.*)$/.exec(stdout.trim())?.[1];
    expect((await trade(code)).status).toBe(200);
  });

  it('refuses with one line naming the DATA_DIR it looked in when no server runs there, and creates nothing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'tt-no-server-'));
    try {
      const failed = await admin(join(empty, 'data')).catch((e: { code: number; stdout: string; stderr: string }) => e);
      expect('code' in failed && failed.code).toBe(2);
      const lines = (failed as { stderr: string }).stderr.trim().split('\n');
      expect(lines).toEqual([`no tinytrack server is running on DATA_DIR ${join(empty, 'data')}: start it with npm start, or run this with the server's DATA_DIR`]);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('dashboard sessions', () => {
  it('give any tab a new ID token of the session’s user until sign-out, which ends them everywhere', async () => {
    const session = sessionOf(await trade(await link('session-user')));
    const tokens = await Promise.all([renew(session), renew(session)]);
    for (const t of tokens) {
      expect([t.status, t.json.expires_in]).toEqual([200, 900]);
      expect((await svc.req('GET', '/api/me', { token: t.json.id_token })).json.uid).toBe('session-user');
    }
    const out = await svc.req('POST', '/dashboard/logout', { headers: { ...SESSION, cookie: `tt_session=${session}` } });
    expect([out.status, cookieOf(out)]).toEqual([204, 'tt_session=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict']);
    const after = await renew(session);
    expect([after.status, after.text, cookieOf(after)]).toEqual([204, '', 'tt_session=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict']);
  });

  it('refuse a trade without the page’s header, an unknown or malformed cookie, and an expired session', async () => {
    const session = sessionOf(await trade(await link('careful-user')));
    expect((await renew(session, {})).status).toBe(401);
    for (const cookie of ['', 'x', 'A'.repeat(43)]) expect((await renew(cookie)).status).toBe(204);
    expect((await renew(session)).status).toBe(200);
    const short = await startTestService({ DASHBOARD_SESSION_DAYS: '1' });
    try {
      const shortLinks = new DynamoLoginLinks(itemTable(short.node.runtime.store, short.node.services.config.tableName));
      const code = newLoginCode();
      await shortLinks.create(loginCodeHash(code), 'daily-user', nowSeconds() + 60);
      const signedIn = await short.req('POST', '/dashboard/login', { body: { code }, headers: SESSION });
      expect(cookieOf(signedIn)).toContain('Max-Age=86400');
      const expired = new DynamoDashboardSessions(itemTable(short.node.runtime.store, short.node.services.config.tableName));
      await expired.create(sessionHash('B'.repeat(43)), 'old-user', nowSeconds() - 1);
      expect((await short.req('POST', '/dashboard/session', { headers: { ...SESSION, cookie: `tt_session=${'B'.repeat(43)}` } })).status).toBe(204);
    } finally {
      await short.stop();
    }
  });

  it('mark the cookie Secure when the dashboard is served over HTTPS', async () => {
    const https = await startTestService({ PUBLIC_URL: 'https://analytics.example.com' });
    try {
      const code = newLoginCode();
      await new DynamoLoginLinks(itemTable(https.node.runtime.store, https.node.services.config.tableName)).create(loginCodeHash(code), 'tls-user', nowSeconds() + 60);
      expect(cookieOf(await https.req('POST', '/dashboard/login', { body: { code }, headers: SESSION }))).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await https.stop();
    }
  });
});

describe('with another OIDC issuer (AUTH_ISSUER)', () => {
  it('points the page at that issuer and has no login-link trade', async () => {
    const oidc = await startTestService({ AUTH_ISSUER: 'https://id.example.com/pool', AUTH_AUDIENCE: 'client-123' });
    try {
      expect((await oidc.req('GET', '/dashboard/config.json')).json).toEqual({ signIn: { type: 'oidc', issuer: 'https://id.example.com/pool', clientId: 'client-123' } });
      expect((await oidc.req('POST', '/dashboard/login', { body: { code: newLoginCode() }, headers: SESSION })).status).toBe(404);
      expect((await oidc.req('GET', '/')).headers.get('content-security-policy')).toContain("connect-src 'self' https:");
    } finally {
      await oidc.stop();
    }
  });
});
