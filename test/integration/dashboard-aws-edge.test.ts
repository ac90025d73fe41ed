/**
 * The dashboard's answers on AWS that a Lambda function gives, run as their
 * Lambda handlers with API Gateway events:
 *   - the session routes over Cognito's refresh tokens, against a fake Cognito
 *     on this machine (a real HTTP server answering /oauth2/token and
 *     /oauth2/revoke as Cognito does for a public client with PKCE);
 *   - the embed page over the real registry (dynalite) of a local test
 *     service, with links and allow-lists made through the API.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OidcTokenClient } from '#adapters/oidc/oidc-token-client.ts';
import { createDashboardSessionHandler } from '#http/handlers/dashboard-session.ts';
import { createEmbedHandler } from '#http/handlers/embed.ts';
import { SIGN_IN_REFUSED } from '#http/session-routes.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const CLIENT = 'dashboard-client';
const REDIRECT = 'https://d111.cloudfront.example/login';
const VERIFIER = 'v'.repeat(43);
/** Cognito's refresh tokens are JWE: five base64url parts. */
const refreshTokenFor = (n: number) => `eyJjdHkiOiJKV1QiLCJlbmMiOiJBMjU2R0NNIiwiYWxnIjoiUlNBLU9BRVAifQ.${'k'.repeat(340)}${n}.iv-part.${'c'.repeat(1200)}.tag-part`;

interface FakeCognito {
  server: Server;
  url: string;
  /** Form bodies received, by path. */
  seen: { path: string; form: URLSearchParams }[];
  live: Set<string>;
  down: boolean;
}

async function startFakeCognito(): Promise<FakeCognito> {
  const fake: FakeCognito = { server: createServer(), url: '', seen: [], live: new Set(), down: false };
  let issued = 0;
  fake.server.on('request', (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      fake.seen.push({ path: req.url ?? '', form });
      const answer = (status: number, json?: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(json === undefined ? '' : JSON.stringify(json));
      if (fake.down) return answer(500, { error: 'internal' });
      if (form.get('client_id') !== CLIENT) return answer(400, { error: 'invalid_client' });
      if (req.url === '/oauth2/revoke') {
        fake.live.delete(form.get('token') ?? '');
        return answer(200);
      }
      if (req.url !== '/oauth2/token') return answer(404);
      issued += 1;
      const tokens = { id_token: `header.id-${issued}.sig`, access_token: `access-${issued}`, expires_in: 900, token_type: 'Bearer' };
      if (form.get('grant_type') === 'authorization_code') {
        const ok = form.get('code') === 'good-code' && form.get('code_verifier') === VERIFIER && form.get('redirect_uri') === REDIRECT;
        if (!ok) return answer(400, { error: 'invalid_grant' });
        const refresh = refreshTokenFor(issued);
        fake.live.add(refresh);
        return answer(200, { ...tokens, refresh_token: refresh });
      }
      if (form.get('grant_type') === 'refresh_token' && fake.live.has(form.get('refresh_token') ?? '')) return answer(200, tokens);
      return answer(400, { error: 'invalid_grant' });
    });
  });
  await new Promise<void>((ok) => fake.server.listen(0, '127.0.0.1', () => ok()));
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  return fake;
}

type Answer = { statusCode: number; headers: Record<string, string>; body: string };
function event(method: string, path: string, options: { routeKey?: string; headers?: Record<string, string>; body?: unknown; pathParameters?: Record<string, string> } = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: options.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: options.headers ?? {},
    ...(options.pathParameters ? { pathParameters: options.pathParameters } : {}),
    ...(options.body === undefined ? {} : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
    isBase64Encoded: false,
    requestContext: { http: { method, path, sourceIp: '203.0.113.9' }, domainName: 'api.example' },
  } as unknown as APIGatewayProxyEventV2;
}

describe('the session routes on AWS, over a fake Cognito', () => {
  let cognito: FakeCognito;
  let handler: ReturnType<typeof createDashboardSessionHandler>;
  const logged: string[] = [];
  beforeAll(async () => {
    cognito = await startFakeCognito();
    handler = createDashboardSessionHandler({
      tokens: new OidcTokenClient({ tokenUrl: `${cognito.url}/oauth2/token`, revokeUrl: `${cognito.url}/oauth2/revoke`, clientId: CLIENT }),
      sessionDays: 30,
      redirectUri: REDIRECT,
      secureCookie: true,
    });
    for (const stream of ['log', 'error', 'warn', 'info'] as const) vi.spyOn(console, stream).mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')));
  });
  afterAll(() => {
    vi.restoreAllMocks();
    cognito?.server.close();
  });

  const SESSION = { 'x-tinytrack-session': '1' };
  const call = (path: string, options: { headers?: Record<string, string>; body?: unknown } = {}) => handler(event('POST', path, options), {} as Context) as Promise<Answer>;
  const login = (body: unknown, headers: Record<string, string> = SESSION) => call('/dashboard/login', { body, headers });
  const withCookie = (path: string, cookie: string) => call(path, { headers: { ...SESSION, cookie: `theme=dark; tt_session=${cookie}` } });
  const cookieValue = (a: Answer) => /tt_session=([^;]*)/.exec(a.headers['Set-Cookie'] ?? '')?.[1];

  it('trades the code and verifier at Cognito, keeps the refresh token only in an HttpOnly, Secure, SameSite=Strict cookie on /dashboard, and gives the ID token', async () => {
    const r = await login({ code: 'good-code', code_verifier: VERIFIER });
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ id_token: expect.stringMatching(/^header\.id-\d+\.sig$/), expires_in: 900 });
    const exchange = cognito.seen.at(-1)!;
    expect([exchange.path, Object.fromEntries(exchange.form)]).toEqual([
      '/oauth2/token',
      { client_id: CLIENT, grant_type: 'authorization_code', code: 'good-code', code_verifier: VERIFIER, redirect_uri: REDIRECT },
    ]);
    const refresh = cookieValue(r)!;
    expect(cognito.live.has(refresh)).toBe(true);
    expect(r.headers['Set-Cookie']).toBe(`tt_session=${refresh}; Path=/dashboard; Max-Age=2592000; HttpOnly; SameSite=Strict; Secure`);
    expect(r.body).not.toContain(refresh);
    expect(r.headers['Cache-Control']).toBe('no-store');
  });

  it('refuses a code Cognito refuses, a malformed body and a request without the page’s header, setting no cookie', async () => {
    for (const body of [{ code: 'spent-code', code_verifier: VERIFIER }, { code: 'good-code', code_verifier: 'short' }, { code: 'a b', code_verifier: VERIFIER }, 'not json', {}]) {
      const r = await login(body);
      expect([r.statusCode, JSON.parse(r.body), r.headers['Set-Cookie']], JSON.stringify(body)).toEqual([400, { error: SIGN_IN_REFUSED }, undefined]);
    }
    const noHeader = await login({ code: 'good-code', code_verifier: VERIFIER }, {});
    expect([noHeader.statusCode, JSON.parse(noHeader.body)]).toEqual([401, { error: 'sign in required' }]);
  });

  it('mints a new ID token per tab from the cookie (refresh_token grant), and answers 204 without a session', async () => {
    const refresh = cookieValue(await login({ code: 'good-code', code_verifier: VERIFIER }))!;
    const tabs = [await withCookie('/dashboard/session', refresh), await withCookie('/dashboard/session', refresh)];
    expect(tabs.map((t) => t.statusCode)).toEqual([200, 200]);
    const [a, b] = tabs.map((t) => (JSON.parse(t.body) as { id_token: string }).id_token);
    expect(a).not.toBe(b);
    expect(Object.fromEntries(cognito.seen.at(-1)!.form)).toEqual({ client_id: CLIENT, grant_type: 'refresh_token', refresh_token: refresh });
    const none = await call('/dashboard/session', { headers: SESSION });
    expect([none.statusCode, none.body, none.headers['Set-Cookie']]).toEqual([204, '', 'tt_session=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict; Secure']);
    const unknown = await withCookie('/dashboard/session', refreshTokenFor(999));
    expect([unknown.statusCode, unknown.headers['Set-Cookie']]).toEqual([204, none.headers['Set-Cookie']]);
  });

  it('revokes the refresh token at Cognito on sign-out and clears the cookie: the session gives no token after', async () => {
    const refresh = cookieValue(await login({ code: 'good-code', code_verifier: VERIFIER }))!;
    const out = await withCookie('/dashboard/logout', refresh);
    expect([out.statusCode, out.headers['Set-Cookie']]).toEqual([204, 'tt_session=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Strict; Secure']);
    expect([cognito.seen.at(-1)!.path, Object.fromEntries(cognito.seen.at(-1)!.form)]).toEqual(['/oauth2/revoke', { client_id: CLIENT, token: refresh }]);
    expect(cognito.live.has(refresh)).toBe(false);
    expect((await withCookie('/dashboard/session', refresh)).statusCode).toBe(204);
  });

  it('answers 503 while Cognito fails, keeping the cookie, and still clears it on sign-out', async () => {
    const refresh = cookieValue(await login({ code: 'good-code', code_verifier: VERIFIER }))!;
    cognito.down = true;
    try {
      const renew = await withCookie('/dashboard/session', refresh);
      expect([renew.statusCode, JSON.parse(renew.body), renew.headers['Set-Cookie']]).toEqual([503, { error: 'service unavailable, retry later' }, undefined]);
      expect((await login({ code: 'good-code', code_verifier: VERIFIER })).statusCode).toBe(503);
      expect((await withCookie('/dashboard/logout', refresh)).headers['Set-Cookie']).toContain('Max-Age=0');
    } finally {
      cognito.down = false;
    }
    expect((await withCookie('/dashboard/session', refresh)).statusCode).toBe(200);
  });

  it('never logs a refresh token or an ID token', () => {
    const secrets = [...cognito.live, refreshTokenFor(1), 'header.id-'];
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});

describe('the embed page on AWS, over the registry', () => {
  let svc: TestService;
  let owner: string;
  const PAGE = '<!doctype html><div id="app"></div>';
  beforeAll(async () => {
    svc = await startTestService();
    owner = await svc.token('embed-owner');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  const embed = async (slug: string) => {
    const handler = createEmbedHandler({ ...svc.node.services, page: PAGE, signIn: { type: 'oidc' } });
    return (await handler(event('GET', `/embed/${slug}`, { routeKey: 'GET /embed/{slug}', pathParameters: { slug } }), {} as Context)) as Answer;
  };

  it('frames the page for the site’s allow-list alone, and refuses unknown, malformed and revoked slugs and sites without a list', async () => {
    const h = await svc.site(owner, { prefix: 'aws-embed' });
    const made = await svc.req('POST', `/api/sites/${h}/shares`, { token: owner, body: {} });
    const slug = (made.json as { slug: string }).slug;
    const refused = (a: Answer) => [a.statusCode, a.headers['X-Frame-Options'], /frame-ancestors ([^;]*)$/.exec(a.headers['Content-Security-Policy'] ?? '')?.[1], a.body];
    expect(refused(await embed(slug))).toEqual([200, 'DENY', "'none'", PAGE]);
    expect((await svc.req('PATCH', `/api/sites/${h}`, { token: owner, body: { embed_origins: ['https://blog.example.com'] } })).status).toBe(200);
    const allowed = await embed(slug);
    expect(refused(allowed)).toEqual([200, undefined, 'https://blog.example.com', PAGE]);
    expect([allowed.headers['Content-Type'], allowed.headers['Cache-Control']]).toEqual(['text/html; charset=utf-8', 'no-store']);
    expect(allowed.headers['Content-Security-Policy']).toContain("connect-src 'self' https:");
    for (const other of ['A'.repeat(24), '%E0%A4%A', 'not a slug']) expect(refused(await embed(other)), other).toEqual([200, 'DENY', "'none'", PAGE]);
    const id = (made.json as { id: string }).id;
    expect((await svc.req('DELETE', `/api/sites/${h}/shares/${id}`, { token: owner })).json).toEqual({ revoked: id });
    expect(refused(await embed(slug))).toEqual([200, 'DENY', "'none'", PAGE]);
  });

  it('answers a malformed percent-escape in /embed/ on the local server with the refusal, not a 500', async () => {
    const r = await svc.req('GET', '/embed/%E0%A4%A');
    expect([r.status, r.headers.get('x-frame-options')]).toEqual([200, 'DENY']);
  });
});
