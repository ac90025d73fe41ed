/**
 * Bad input against the real local server: overlong, percent-encoded and
 * unicode path and query values on every route of the table never become a
 * 5xx; hostnames and job ids that cannot exist are 404 without reaching the
 * stores; unknown hostnames are looked up once per cache lifetime; a client
 * that hangs up mid-request is no server error.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routes, routeKey, type RouteDef } from '#http/routes.ts';
import { startTestService, unique, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
let site: string;
let key: string;

beforeAll(async () => {
  // Import credential tests, Google and Cloudflare go nowhere: nothing leaves the machine. Google is
  // configured so that its routes answer as on a deployment that offers them, not 501.
  const nowhere = 'http://127.0.0.1:9';
  svc = await startTestService({
    SIMPLEANALYTICS_BASE_URL: nowhere,
    CLOUDFLARE_API_URL: nowhere,
    GOOGLE_CLIENT_ID: 'bad-input.apps.googleusercontent.com',
    GOOGLE_CLIENT_SECRET: 'bad-input-secret',
    GOOGLE_AUTH_URL: `${nowhere}/auth`,
    GOOGLE_TOKEN_URL: `${nowhere}/token`,
    GOOGLE_REVOKE_URL: `${nowhere}/revoke`,
    GOOGLE_API_URL: nowhere,
    GOOGLE_REDIRECT_URI: 'http://127.0.0.1:9/account',
    GOOGLE_RETRY_BASE_MS: '0',
  });
  owner = await svc.token('bad-input-owner');
  site = await svc.site(owner, { prefix: 'bad-input' });
  key = (await svc.key(owner, ['read', 'manage', 'ingest'])).key;
});
afterAll(() => svc.stop());

const JOB_ID = '00000000-0000-0000-0000-000000000000';
const hex = (b: number) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`;

/** A path segment or query value, already in URL form. */
const hostile = fc.oneof(
  fc.integer({ min: 254, max: 6000 }).map((n) => 'a'.repeat(n)),
  fc.integer({ min: 1, max: 40 }).map((n) => Array.from({ length: n }, (_, i) => `l${i}`.padEnd(63, 'x')).join('.')),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }).map(encodeURIComponent),
  fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 600 }).map((bytes) => bytes.map(hex).join('')),
  fc.constantFrom('%2F', '..', '.', '%00', '%25', '%25%32%46', '%E0%A4%A', 'EXAMPLE.COM', 'xn--zz.example', 'xn--bcher-kva.de', '%C3%BC.example', JOB_ID),
  fc.constant('site').map(() => site),
);

const credentials = ['none', 'ID token', 'management key'] as const;
const authorization = (credential: (typeof credentials)[number]) => (credential === 'ID token' ? owner : credential === 'management key' ? key : undefined);

function requestFor(route: RouteDef) {
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const queryNames = fc.constantFrom(...Object.keys(route.query ?? {}), 'hostname', 'x');
  return fc.record({
    method: fc.constant(route.method === 'ANY' ? 'GET' : route.method),
    segments: fc.tuple(...params.map(() => hostile)),
    query: fc.array(fc.tuple(queryNames, hostile), { maxLength: 4 }),
    credential: fc.constantFrom(...credentials),
    body: fc.option(fc.json({ maxDepth: 2 }), { nil: undefined }),
  }).map(({ method, segments, query, credential, body }) => {
    let i = 0;
    const path = route.path.replace(/\{\w+\}/g, () => segments[i++] as string);
    const search = query.map(([name, value]) => `${name}=${value}`).join('&');
    return { method, url: search ? `${path}?${search}` : path, credential, body: method === 'GET' ? undefined : body };
  });
}

// DELETE routes last: one may revoke the key or delete the site the other routes are called with.
const deletesLast = [...routes].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

describe.each(deletesLast.map((r) => [routeKey(r), r] as const))('%s with hostile path and query values', (_, route) => {
  it('never answers 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(requestFor(route), async (r) => {
        const res = await svc.req(r.method, r.url, { token: authorization(r.credential), raw: r.body });
        expect(res.status, `${r.method} ${r.url} with ${r.credential} answered ${res.status} ${res.text}`).toBeLessThan(500);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

/** Every route with a {hostname}, with its other parameters filled in with something possible. */
const hostnameRoutes = routes.filter((r) => r.path.includes('{hostname}'));
const at = (r: RouteDef, hostname: string, jobId = JOB_ID) => r.path.replace('{hostname}', hostname).replace('{jobId}', jobId);
const methodOf = (r: RouteDef) => (r.method === 'ANY' ? 'GET' : r.method);

/** Counts the registry's site reads for `hostname` while `fn` runs. */
async function readsOf(hostname: string, fn: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(svc.node.services.registry, 'getSite');
  try {
    await fn();
    return spy.mock.calls.filter(([name]) => name === hostname).length;
  } finally {
    spy.mockRestore();
  }
}

describe('a hostname that cannot be registered', () => {
  it.each(hostnameRoutes.map((r) => [routeKey(r), r] as const))('%s: 404 unknown site for the owner (2,044 characters)', async (_, route) => {
    const r = await svc.req(methodOf(route), at(route, 'a'.repeat(2044)), { token: owner, body: methodOf(route) === 'GET' ? undefined : {} });
    expect([r.status, r.json]).toEqual([404, { error: 'unknown site' }]);
  });

  it('is 404 unknown site for anyone without a registry read, and a revoked management key is still 401 first', async () => {
    const reader = await svc.key(owner, ['read']);
    const long = 'a'.repeat(2044);
    const path = `/api/sites/${long}`;
    const reads = await readsOf(long, async () => {
      expect((await svc.req('GET', path)).json).toEqual({ error: 'unknown site' });
      expect((await svc.req('GET', path, { token: reader.key })).json).toEqual({ error: 'unknown site' });
      expect((await svc.req('GET', path, { token: owner })).json).toEqual({ error: 'unknown site' });
    });
    expect(reads).toBe(0);
    await svc.req('DELETE', `/api/management-keys/${reader.id}`, { token: owner });
    const r = await svc.req('GET', path, { token: reader.key });
    expect([r.status, r.json]).toEqual([401, { error: 'invalid or revoked management key' }]);
  });
});

describe('an import job id that is not an id', () => {
  it.each(['cancel', 'retry'])('%s: 404 unknown import for the owner (1,018 characters)', async (action) => {
    const own = await svc.site(owner, { prefix: 'jobs' });
    const r = await svc.req('POST', `/api/sites/${own}/imports/${'a'.repeat(1018)}/${action}`, { token: owner, body: {} });
    expect([r.status, r.json]).toEqual([404, { error: 'unknown import' }]);
  });
});

describe('registry reads for unregistered hostnames', () => {
  it('reads once for repeated beacons and anonymous reads of one unknown hostname', async () => {
    const hostname = unique('never-registered');
    const reads = await readsOf(hostname, async () => {
      for (let i = 0; i < 10; i++) expect((await svc.req('POST', '/events', { raw: JSON.stringify({ hostname, path: '/' }) })).text).toBe('ok');
      for (let i = 0; i < 5; i++) expect((await svc.req('GET', `/api/sites/${hostname}`)).status).toBe(404);
    });
    expect(reads).toBe(1);
  });

  it('reads once per request for a signed-in caller (a cached miss is re-read, a fresh one is not)', async () => {
    const hostname = unique('never-registered');
    const reads = await readsOf(hostname, async () => {
      for (let i = 0; i < 3; i++) expect((await svc.req('GET', `/api/sites/${hostname}`, { token: owner })).status).toBe(404);
    });
    expect(reads).toBe(3);
  });
});

describe('a client that disconnects mid-request', () => {
  it('is logged once at debug level, never as an error, and the server still serves', async () => {
    const lines: { level: string; line: string }[] = [];
    for (const level of ['error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push({ level, line: args.map(String).join(' ') }));
    }
    try {
      const { hostname, port } = new URL(svc.url);
      const socket = connect(Number(port), hostname);
      await new Promise<void>((ok) => socket.once('connect', ok));
      const partial = 'POST /events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"hostname":"';
      await new Promise<void>((ok, fail) => socket.write(partial, (e) => (e ? fail(e) : ok())));
      socket.destroy();
      await vi.waitFor(() => expect(lines.length).toBeGreaterThan(0), { timeout: 10_000 });
      expect(lines.map((l) => l.level)).toEqual(['debug']);
      expect(JSON.parse(lines[0]?.line ?? '{}')).toMatchObject({ level: 'debug', msg: 'client disconnected mid-request' });
      expect((await svc.req('GET', '/healthz')).text).toBe('ok');
      expect(lines.map((l) => l.level)).toEqual(['debug']);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
