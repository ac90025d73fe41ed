/**
 * The session routes over an issuer's refresh tokens (functions/http/session-routes.ts),
 * over an in-memory issuer: which callback the code is traded for, the cookie's attributes,
 * a rotated refresh token, and the cookie forms each kind of session accepts.
 */
import { describe, expect, it } from 'vitest';
import { refreshTokenOf, sessionIdOf } from '#domain/dashboard-session.ts';
import { oidcSessionRoutes, SIGN_IN_REFUSED } from '#http/session-routes.ts';
import type { OidcTokenSet, OidcTokens } from '#ports/oidc-tokens.ts';

const VERIFIER = 'v'.repeat(43);
const REFRESH = `${'a'.repeat(40)}.${'b'.repeat(40)}`;

function issuer(rotate = false): OidcTokens & { callbacks: string[] } {
  const set = (refreshToken: string | null): OidcTokenSet => ({ idToken: 'id', expiresIn: 900, refreshToken });
  const callbacks: string[] = [];
  return {
    callbacks,
    exchangeCode: async (_code, _verifier, redirectUri) => (callbacks.push(redirectUri), set(REFRESH)),
    refresh: async (token) => (token === REFRESH ? set(rotate ? `${REFRESH}.next` : null) : null),
    revoke: async () => true,
  };
}

const body = (value: unknown) => Buffer.from(JSON.stringify(value));
const login = (redirect_uri: unknown) => body({ code: 'code', code_verifier: VERIFIER, redirect_uri });

describe('OIDC session routes', () => {
  it('trades the code for the page’s /login callback when no origin is configured, and refuses any other callback', async () => {
    const tokens = issuer();
    const routes = oidcSessionRoutes({ tokens, sessionDays: 1, redirectUri: null, secureCookie: false });
    expect((await routes['/dashboard/login'](login('http://127.0.0.1:8787/login'), {})).statusCode).toBe(200);
    expect(tokens.callbacks).toEqual(['http://127.0.0.1:8787/login']);
    for (const bad of ['https://evil.example/callback', 'javascript:alert(1)//login', 'https://a.example/login?x=1', 'https://u@a.example/login', '/login', undefined]) {
      const r = await routes['/dashboard/login'](login(bad), {});
      expect([r.statusCode, JSON.parse(r.body ?? '')], String(bad)).toEqual([400, { error: SIGN_IN_REFUSED }]);
    }
    expect(tokens.callbacks).toHaveLength(1);
  });

  it('binds the code to the configured origin’s /login whatever the page names, with a Secure cookie of the session’s days', async () => {
    const tokens = issuer();
    const routes = oidcSessionRoutes({ tokens, sessionDays: 7, redirectUri: 'https://d.example/login', secureCookie: true });
    const r = await routes['/dashboard/login'](login('https://evil.example/login'), {});
    expect(tokens.callbacks).toEqual(['https://d.example/login']);
    expect(r.headers['Set-Cookie']).toBe(`tt_session=${REFRESH}; Path=/dashboard; Max-Age=604800; HttpOnly; SameSite=Strict; Secure`);
  });

  it('leaves Secure off over plain http, and follows a rotated refresh token with the cookie', async () => {
    const routes = oidcSessionRoutes({ tokens: issuer(true), sessionDays: 1, redirectUri: null, secureCookie: false });
    const r = await routes['/dashboard/session'](Buffer.alloc(0), { cookie: `tt_session=${REFRESH}` });
    expect([r.statusCode, r.headers['Set-Cookie']]).toEqual([200, `tt_session=${REFRESH}.next; Path=/dashboard; Max-Age=86400; HttpOnly; SameSite=Strict`]);
  });
});

describe('the session cookie’s forms', () => {
  it('reads a refresh token (base64url parts and dots) and a local session id, each only in its own form', () => {
    const id = 'A'.repeat(43);
    expect(refreshTokenOf(`a=1; tt_session=${REFRESH}`)).toBe(REFRESH);
    expect(refreshTokenOf('tt_session=short')).toBeNull();
    expect(refreshTokenOf(`tt_session=${REFRESH}%20x`)).toBeNull();
    expect(refreshTokenOf(undefined)).toBeNull();
    expect(sessionIdOf(`tt_session=${id}`)).toBe(id);
    expect(sessionIdOf(`tt_session=${REFRESH}`)).toBeNull();
  });
});
