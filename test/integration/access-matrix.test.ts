/**
 * Every authenticated route of the table, against a second account, an
 * expired token, a revoked key and a key without the route's scope: each is
 * refused with the spec's status and text, and nothing changes. The DNS claim
 * routes are for other accounts by design: a second account may start a claim
 * (and moves nothing without the TXT record); the owner is refused instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, routeKey, type RouteDef } from '#http/routes.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
let site: string;
let ownKeyId: string;
let before: unknown;
/** A verified site of the owner's made public: owner-only routes stay closed on it. */
let publicSite: string;

/** What the refused calls could have changed: the account's sites, the site, its imports, and the owner's key. */
async function ownerState() {
  const keys = await svc.req('GET', '/api/management-keys', { token: owner });
  return {
    sites: (await svc.req('GET', '/api/sites', { token: owner })).json,
    site: (await svc.req('GET', `/api/sites/${site}`, { token: owner })).json,
    imports: (await svc.req('GET', `/api/sites/${site}/imports`, { token: owner })).json,
    ownKey: keys.json.keys.find((k: { id: string }) => k.id === ownKeyId),
  };
}

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('matrix-owner');
  site = await svc.site(owner, { prefix: 'matrix' });
  ownKeyId = (await svc.key(owner, ['ingest'])).id;
  publicSite = await svc.site(owner, { prefix: 'matrix-public' });
  expect((await svc.req('PATCH', `/api/sites/${publicSite}`, { token: owner, body: { is_public: true } })).status).toBe(200);
  before = await ownerState();
});
afterAll(() => svc.stop());

const guarded = routes.filter((r) => r.auth !== 'none');
const path = (r: RouteDef) => r.path.replace('{hostname}', site).replace('{id}', ownKeyId).replace('{jobId}', '00000000-0000-0000-0000-000000000000');
const call = (r: RouteDef, token: string) => svc.req(r.method === 'ANY' ? 'GET' : r.method, path(r), { token, body: r.method === 'GET' ? undefined : {} });
/** Routes about one site; the rest are about the caller's own account. */
const siteRoute = (r: RouteDef) => r.path.includes('{hostname}');
/** The DNS claim routes: for accounts other than the owner. */
const claimRoute = (r: RouteDef) => r.path.startsWith('/api/sites/{hostname}/claim');

describe.each(guarded.map((r) => [routeKey(r), r] as const))('%s', (_, route) => {
  it('refuses an expired ID token', async () => {
    const r = await call(route, await svc.token('matrix-owner', -60));
    if (route.auth === 'site' || route.auth === 'owner') expect([r.status, r.json]).toEqual([404, { error: 'unknown site' }]);
    else expect([r.status, r.json]).toEqual([401, { error: 'sign in required' }]);
  });

  it('refuses a revoked management key', async () => {
    const k = await svc.key(owner, ['read', 'manage', 'ingest']);
    await svc.req('DELETE', `/api/management-keys/${k.id}`, { token: owner });
    const r = await call(route, k.key);
    // Where a key is no credential at all (the live stream), it is not even looked up.
    expect([r.status, r.json]).toEqual([401, { error: route.auth === 'user' ? 'sign in required' : 'invalid or revoked management key' }]);
  });

});

/** Routes that refuse some management keys: ID-token-only routes, and routes that need a scope. */
const keyRefusing = guarded.filter((r) => r.auth === 'id_token' || r.scope);

describe.each(keyRefusing.map((r) => [routeKey(r), r] as const))('%s with the wrong key', (_, route) => {
  it('refuses a key without the scope, or any key where an ID token is needed', async () => {
    const others = ['read', 'manage', 'ingest'].filter((s) => s !== route.scope);
    const k = await svc.key(owner, others);
    const r = await call(route, k.key);
    const expected = route.auth === 'id_token' ? 'management keys cannot call this endpoint' : `scope ${route.scope} required`;
    expect([r.status, r.json]).toEqual([403, { error: expected }]);
    await svc.req('DELETE', `/api/management-keys/${k.id}`, { token: owner });
  });
});

describe.each(guarded.filter((r) => siteRoute(r) && !claimRoute(r)).map((r) => [routeKey(r), r] as const))('%s from another account', (_, route) => {
  it('answers 404 unknown site', async () => {
    const r = await call(route, await svc.token('matrix-stranger'));
    expect([r.status, r.json]).toEqual([404, { error: 'unknown site' }]);
  });
});

describe.each(guarded.filter((r) => r.auth === 'owner').map((r) => [routeKey(r), r] as const))('%s on a public site', (_, route) => {
  it('answers 404 unknown site to anonymous callers and to another account (owner only, also for public sites)', async () => {
    const at = path(route).replace(site, publicSite);
    for (const token of [undefined, await svc.token('matrix-stranger')]) {
      const r = await svc.req('GET', at, { token });
      expect([r.status, r.json]).toEqual([404, { error: 'unknown site' }]);
    }
  });
});

describe('the claim routes', () => {
  const claimRoutes = guarded.filter(claimRoute);

  it('are both in the table, for ID tokens only', () => {
    expect(claimRoutes.map((r) => [routeKey(r), r.auth])).toEqual([
      ['POST /api/sites/{hostname}/claim', 'id_token'],
      ['POST /api/sites/{hostname}/claim/verify', 'id_token'],
    ]);
  });

  it('refuse the owner with 409, and let another account start a claim (test/integration/site-claims.test.ts checks the rest)', async () => {
    for (const route of claimRoutes) {
      const r = await call(route, owner);
      expect([routeKey(route), r.status, r.json]).toEqual([routeKey(route), 409, { error: 'this site is already registered to your account' }]);
    }
    const start = claimRoutes[0] as RouteDef;
    expect((await call(start, await svc.token('matrix-claimant'))).status).toBe(201);
  });
});

describe('after the refusals', () => {
  it('left the account\'s sites, the site, its imports and the owner\'s key as they were', async () => {
    expect(await ownerState()).toEqual(before);
  });
});
