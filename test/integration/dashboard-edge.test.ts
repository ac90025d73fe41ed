/**
 * The dashboard on the local server, over HTTP: which paths give the page,
 * its assets and headers, what stays the API's 404, and the one-time trade of
 * a login link for an ID token (real dynalite behind the links).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoLoginLinks } from '#adapters/dynamodb/login-links.ts';
import { INVALID_LOGIN_LINK, LOGIN_LINK_TTL_SECONDS, loginCodeHash, newLoginCode } from '#domain/login-link.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let links: DynamoLoginLinks;
beforeAll(async () => {
  svc = await startTestService();
  links = new DynamoLoginLinks(svc.node.runtime.store, svc.node.services.config.tableName);
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

const trade = (code: unknown) => svc.req('POST', '/dashboard/login', { body: { code } });

describe('dashboard pages and assets', () => {
  it('answers the page at the paths it routes, with a strict CSP and no caching', async () => {
    for (const path of ['/', '/login', '/sites/example.com', '/sites/example.com/settings', '/share/example.com']) {
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

describe('login links', () => {
  it('trades a link once for an ID token of its user', async () => {
    const code = await link('link-user');
    const first = await trade(code);
    expect(first.status).toBe(200);
    expect(first.json.expires_in).toBe(3600);
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
    const raw = await svc.req('POST', '/dashboard/login', { raw: '{not json' });
    expect(raw.status).toBe(400);
  });

  it('two trades of one link at once give one token', async () => {
    const code = await link('race-user');
    const results = await Promise.all([trade(code), trade(code), trade(code)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });
});

describe('with another OIDC issuer (AUTH_ISSUER)', () => {
  it('points the page at that issuer and has no login-link trade', async () => {
    const oidc = await startTestService({ AUTH_ISSUER: 'https://id.example.com/pool', AUTH_AUDIENCE: 'client-123' });
    try {
      expect((await oidc.req('GET', '/dashboard/config.json')).json).toEqual({ signIn: { type: 'oidc', issuer: 'https://id.example.com/pool', clientId: 'client-123' } });
      expect((await oidc.req('POST', '/dashboard/login', { body: { code: newLoginCode() } })).status).toBe(404);
      expect((await oidc.req('GET', '/')).headers.get('content-security-policy')).toContain("connect-src 'self' https:");
    } finally {
      await oidc.stop();
    }
  });
});
