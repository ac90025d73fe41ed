/**
 * Site API keys and POST /api/ingest over HTTP, against the real handlers,
 * dynalite and DuckDB: every credential path, the batch rules, and the rows
 * arriving in the API-requests series.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import { registrationKey } from '#domain/registration.ts';

let svc: TestService;
let owner: string;
let apiSite: string;

const item = (extra: Record<string, unknown> = {}) => ({ method: 'get', route: '/users/{id}', status: 200, duration_ms: 12.5, ...extra });
const ingest = (token: string | undefined, requests: unknown[], headers: Record<string, string> = {}) =>
  svc.req('POST', '/api/ingest', { token, body: { requests }, headers });

/** What the series holds for a site over the last day, once the queue is written. */
async function stored(site: string, uid: string, atLeast = 1) {
  const now = Date.now();
  return svc.until(
    () => svc.node.runtime.adapters.apiRequests.apiTotals({ site, registration: registrationKey(uid, site), from: now - 86_400_000, to: now + 60_000, filters: [] }),
    (t) => t.requests >= atLeast,
  );
}

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('ingest-owner');
  apiSite = await svc.site(owner, { prefix: 'api', kind: 'api', verify: false });
});
afterAll(() => svc.stop());

describe('site API keys', () => {
  it('an API site creates a key before verification: tt_ + 48 hex, shown once, listed without the secret', async () => {
    const r = await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: owner, body: { label: ' prod ' } });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ id: expect.any(String), key: expect.stringMatching(/^tt_[0-9a-f]{48}$/), label: 'prod', created_at: expect.any(String) });
    const list = await svc.req('GET', `/api/sites/${apiSite}/keys`, { token: owner });
    expect(list.status).toBe(200);
    expect(list.json.keys).toContainEqual({ id: r.json.id, label: 'prod', created_at: r.json.created_at, rotated_at: null, last_used_at: null });
    expect(list.text).not.toContain(r.json.key);
  });

  it('a website must be verified before it gets keys', async () => {
    const pending = await svc.site(owner, { prefix: 'web-pending', verify: false });
    expect(await svc.req('POST', `/api/sites/${pending}/keys`, { token: owner, body: {} }).then((r) => [r.status, r.json])).toEqual([
      403,
      { error: 'verify this site before creating API keys' },
    ]);
    const verified = await svc.site(owner, { prefix: 'web-verified' });
    expect((await svc.req('POST', `/api/sites/${verified}/keys`, { token: owner, body: {} })).status).toBe(201);
  });

  it('scopes: read lists, manage changes; other accounts, unknown sites and bad labels are refused', async () => {
    const read = await svc.key(owner, ['read']);
    const manage = await svc.key(owner, ['manage']);
    expect((await svc.req('GET', `/api/sites/${apiSite}/keys`, { token: read.key })).status).toBe(200);
    expect(await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: read.key, body: {} }).then((r) => [r.status, r.json])).toEqual([403, { error: 'scope manage required' }]);
    expect(await svc.req('GET', `/api/sites/${apiSite}/keys`, { token: manage.key }).then((r) => [r.status, r.json])).toEqual([403, { error: 'scope read required' }]);
    expect((await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: manage.key, body: { label: 'ci' } })).status).toBe(201);
    const stranger = await svc.token('stranger');
    const expired = await svc.token('ingest-owner', -30);
    for (const token of [stranger, expired, undefined]) {
      const r = await svc.req('GET', `/api/sites/${apiSite}/keys`, { token });
      expect(r.status === 404 || r.status === 401).toBe(true);
      expect(r.json.error).toMatch(/^(unknown site|sign in required)$/);
    }
    expect((await svc.req('GET', `/api/sites/${apiSite}/keys`, { token: stranger })).json).toEqual({ error: 'unknown site' });
    expect((await svc.req('GET', '/api/sites/nope.example/keys', { token: owner })).json).toEqual({ error: 'unknown site' });
    expect(await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: owner, body: { label: 'x'.repeat(101) } }).then((r) => [r.status, r.json])).toEqual([
      400,
      { error: 'invalid label' },
    ]);
    expect((await svc.req('DELETE', `/api/sites/${apiSite}/keys/missing`, { token: owner })).json).toEqual({ error: 'unknown key' });
  });

  it('keys a management key created survive its revocation', async () => {
    const manage = await svc.key(owner, ['manage']);
    const created = await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: manage.key, body: { label: 'made by a key' } });
    expect((await svc.req('DELETE', '/api/management-keys/self', { token: manage.key })).status).toBe(200);
    expect((await ingest(created.json.key, [item()])).status).toBe(202);
  });

  it('a site API key is an unknown credential on every other route', async () => {
    const { json } = await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: owner, body: {} });
    expect(await svc.req('GET', '/api/sites', { token: json.key }).then((r) => [r.status, r.json])).toEqual([401, { error: 'sign in required' }]);
    expect(await svc.req('GET', `/api/sites/${apiSite}/keys`, { token: json.key }).then((r) => [r.status, r.json])).toEqual([401, { error: 'sign in required' }]);
    expect(await svc.req('GET', `/api/sites/${apiSite}`, { token: json.key }).then((r) => [r.status, r.json])).toEqual([404, { error: 'unknown site' }]);
  });
});

describe('POST /api/ingest', () => {
  it('a site key sends for its own site: 202 {accepted}, rows in the series with the arrival time', async () => {
    const { json } = await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: owner, body: {} });
    const before = Date.now();
    const r = await ingest(json.key, [item({ ts: 1, route: '/arrivals/{id}' }), item({ method: 'POST', route: '/orders', status: 503, duration_ms: 250, bytes_out: 10, consumer: 'mobile' })]);
    expect([r.status, r.json]).toEqual([202, { accepted: 2 }]);
    const totals = await stored(apiSite, 'ingest-owner', 2);
    expect(totals).toMatchObject({ requests: expect.any(Number), server_errors: expect.any(Number) });
    const now = Date.now();
    const routes = await svc.node.runtime.adapters.apiRequests.apiBreakdown(
      { site: apiSite, registration: registrationKey('ingest-owner', apiSite), from: before - 1000, to: now + 1000, filters: [] },
      'routes',
      10,
    );
    // The client's ts (1970) is ignored: both rows are in the window of the request.
    expect(routes.map((row) => [row.name, row.requests])).toEqual(expect.arrayContaining([['/orders', 1], ['/arrivals/{id}', 1]]));
    const keys = await svc.req('GET', `/api/sites/${apiSite}/keys`, { token: owner });
    expect(keys.json.keys.find((k: { id: string }) => k.id === json.id).last_used_at).toEqual(expect.any(String));
  });

  it("another site's key, a header naming another site, revoked and rotated keys are refused", async () => {
    const other = await svc.site(owner, { prefix: 'api-other', kind: 'api', verify: false });
    const mine = (await svc.req('POST', `/api/sites/${apiSite}/keys`, { token: owner, body: {} })).json;
    expect(await ingest(mine.key, [item()], { 'X-Service-Site': other }).then((r) => [r.status, r.json])).toEqual([403, { error: 'this API key belongs to another site' }]);
    expect((await ingest(mine.key, [item()], { 'X-Service-Site': apiSite })).status).toBe(202);
    const rotated = await svc.req('POST', `/api/sites/${apiSite}/keys/${mine.id}/rotate`, { token: owner });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toEqual({ id: mine.id, key: expect.stringMatching(/^tt_[0-9a-f]{48}$/), label: '', created_at: mine.created_at, rotated_at: expect.any(String) });
    expect(rotated.json.key).not.toBe(mine.key);
    // The instance that rotated stops accepting the old secret at once.
    expect(await ingest(mine.key, [item()]).then((r) => [r.status, r.json])).toEqual([401, { error: 'invalid or revoked API key' }]);
    expect((await ingest(rotated.json.key, [item()])).status).toBe(202);
    expect(await svc.req('DELETE', `/api/sites/${apiSite}/keys/${mine.id}`, { token: owner }).then((r) => [r.status, r.json])).toEqual([200, { revoked: mine.id }]);
    expect((await ingest(rotated.json.key, [item()])).status).toBe(401);
    // A key of one site cannot send for another: it always lands on its own.
    const otherKey = (await svc.req('POST', `/api/sites/${other}/keys`, { token: owner, body: {} })).json.key;
    expect(await ingest(otherKey, [item()], { 'X-Service-Site': apiSite }).then((r) => r.json)).toEqual({ error: 'this API key belongs to another site' });
  });

  it('management keys: ingest scope and the X-Service-Site header; read keys, other accounts and ID tokens are refused', async () => {
    const ingestKey = await svc.key(owner, ['ingest']);
    const readKey = await svc.key(owner, ['read']);
    expect(await ingest(ingestKey.key, [item()]).then((r) => [r.status, r.json])).toEqual([400, { error: 'X-Service-Site header required' }]);
    expect((await ingest(ingestKey.key, [item()], { 'X-Service-Site': apiSite })).status).toBe(202);
    expect(await ingest(readKey.key, [item()], { 'X-Service-Site': apiSite }).then((r) => [r.status, r.json])).toEqual([403, { error: 'scope ingest required' }]);
    const strangerKey = await svc.key(await svc.token('someone-else'), ['ingest']);
    expect(await ingest(strangerKey.key, [item()], { 'X-Service-Site': apiSite }).then((r) => [r.status, r.json])).toEqual([404, { error: 'unknown site' }]);
    // An ID token is no ingest credential: as none at all.
    expect(await ingest(owner, [item()], { 'X-Service-Site': apiSite }).then((r) => [r.status, r.json])).toEqual([401, { error: 'sign in required' }]);
    expect(await ingest(`tt_${'0'.repeat(48)}`, [item()]).then((r) => [r.status, r.json])).toEqual([401, { error: 'invalid or revoked API key' }]);
    expect(await ingest(undefined, [item()]).then((r) => [r.status, r.json])).toEqual([401, { error: 'sign in required' }]);
    expect((await ingest('tt_mk_' + '0'.repeat(48), [item()], { 'X-Service-Site': apiSite })).json).toEqual({ error: 'invalid or revoked management key' });
    // Not rate limited: far past the key-change burst of 60.
    const answers = await Promise.all(Array.from({ length: 70 }, () => ingest(ingestKey.key, [item()], { 'X-Service-Site': apiSite }).then((r) => r.status)));
    expect(new Set(answers)).toEqual(new Set([202]));
  });

  it('an unverified website cannot send API data; an unverified API site can', async () => {
    const ingestKey = await svc.key(owner, ['ingest']);
    const pending = await svc.site(owner, { prefix: 'web-unverified', verify: false });
    expect(await ingest(ingestKey.key, [item()], { 'X-Service-Site': pending }).then((r) => [r.status, r.json])).toEqual([
      403,
      { error: 'verify this site before sending API data' },
    ]);
    const freshApi = await svc.site(owner, { prefix: 'api-fresh', kind: 'api', verify: false });
    expect((await ingest(ingestKey.key, [item()], { 'X-Service-Site': freshApi })).status).toBe(202);
  });

  it('refuses a bad batch whole, naming the index and the field', async () => {
    const ingestKey = await svc.key(owner, ['ingest']);
    const site = await svc.site(owner, { prefix: 'api-batch', kind: 'api', verify: false });
    const send = (body: unknown) => svc.req('POST', '/api/ingest', { token: ingestKey.key, body, headers: { 'X-Service-Site': site } }).then((r) => [r.status, r.json.error]);
    expect(await send({ requests: [] })).toEqual([400, 'requests must be an array of 1 to 1000 items']);
    expect(await send({ requests: Array.from({ length: 1001 }, () => item()) })).toEqual([400, 'requests must be an array of 1 to 1000 items']);
    expect(await send({})).toEqual([400, 'requests must be an array of 1 to 1000 items']);
    expect(await svc.req('POST', '/api/ingest', { token: ingestKey.key, raw: '{nope', headers: { 'X-Service-Site': site } }).then((r) => [r.status, r.json.error])).toEqual([
      400,
      'invalid JSON body',
    ]);
    const cases: [Record<string, unknown>, string][] = [
      [{ status: 99 }, 'requests[2].status must be an integer from 100 to 599'],
      [{ status: 200.5 }, 'requests[2].status must be an integer from 100 to 599'],
      [{ method: 'GET /x' }, 'requests[2].method must be an HTTP method (letters only, at most 16)'],
      [{ route: '' }, 'requests[2].route must be a route template of 1 to 256 characters'],
      [{ route: '/' + 'a'.repeat(256) }, 'requests[2].route must be a route template of 1 to 256 characters'],
      [{ duration_ms: -1 }, 'requests[2].duration_ms must be a number from 0 to 86400000'],
      [{ duration_ms: '5' }, 'requests[2].duration_ms must be a number from 0 to 86400000'],
      [{ bytes_in: -3 }, 'requests[2].bytes_in must be an integer of at least 0'],
      [{ bytes_out: 1.5 }, 'requests[2].bytes_out must be an integer of at least 0'],
      [{ consumer: 'c'.repeat(65) }, 'requests[2].consumer must be a string of at most 64 characters'],
    ];
    for (const [bad, error] of cases) expect(await send({ requests: [item(), item(), item(bad)] })).toEqual([400, error]);
    expect(await send({ requests: [item(), 'x'] })).toEqual([400, 'requests[1] must be an object']);
    // Nothing of a refused batch was stored; 1,000 valid items are.
    expect(await send({ requests: Array.from({ length: 1000 }, () => item()) })).toEqual([202, undefined]);
    const totals = await stored(site, 'ingest-owner', 1000);
    expect(totals.requests).toBe(1000);
  });
});

describe('site delete', () => {
  it('removes the site API keys: the key stops working and a new registration has none', async () => {
    const site = await svc.site(owner, { prefix: 'api-deleted', kind: 'api', verify: false });
    const key = (await svc.req('POST', `/api/sites/${site}/keys`, { token: owner, body: {} })).json.key;
    expect((await ingest(key, [item()])).status).toBe(202);
    expect((await svc.req('DELETE', `/api/sites/${site}`, { token: owner })).status).toBe(200);
    expect((await ingest(key, [item()])).status).toBe(401);
    expect((await svc.req('POST', '/api/sites', { token: owner, body: { hostname: site, kind: 'api' } })).status).toBe(201);
    expect((await svc.req('GET', `/api/sites/${site}/keys`, { token: owner })).json).toEqual({ keys: [] });
  });
});
