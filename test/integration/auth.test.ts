/** Identity, management keys, scopes, revocation and the change rate limit over HTTP (spec part 5). */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import dns from 'node:dns';
import { startTestService, type TestService } from '../support/local-node.ts';
import { preloadedOnly } from '#adapters/jwt/jwt-token-verifier.ts';
import { LOCAL_JWKS_URI } from '#local/local-issuer.ts';

let svc: TestService;
let alice: string;

const randomKey = () => `tt_mk_${randomBytes(24).toString('hex')}`;

beforeAll(async () => {
  svc = await startTestService();
  alice = await svc.token('alice');
});
afterAll(() => svc.stop());

describe('ID tokens', () => {
  it('account endpoints answer 401 sign in required without a valid token', async () => {
    const expired = await svc.token('alice', -30);
    for (const token of [undefined, expired, 'a.b.c', randomBytes(10).toString('hex')]) {
      const r = await svc.req('GET', '/api/sites', { token });
      expect([r.status, r.json]).toEqual([401, { error: 'sign in required' }]);
    }
    expect((await svc.req('POST', '/api/management-keys', { body: { scopes: ['read'] } })).json).toEqual({ error: 'sign in required' });
  });

  // The first token with an unknown kid in this file: later ones meet the verifier's 10 s fetch penalty instead.
  it('refuses a token signed by another key (unknown kid) without asking the network for a key set', async () => {
    const lookup = vi.spyOn(dns, 'lookup');
    const fetchKeys = vi.spyOn(preloadedOnly, 'fetch');
    const { generateKeyPairSync } = await import('node:crypto');
    const { SignJWT } = await import('jose');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = await new SignJWT({ token_use: 'id' })
      .setProtectedHeader({ alg: 'RS256', kid: 'forged' })
      .setIssuer('https://tinytrack.local/issuer')
      .setAudience('tinytrack-local')
      .setSubject('alice')
      .setExpirationTime('1h')
      .sign(privateKey);
    try {
      expect((await svc.req('GET', '/api/sites', { token: forged })).status).toBe(401);
      expect(fetchKeys.mock.calls.map(([uri]) => uri)).toEqual([LOCAL_JWKS_URI]);
      expect(lookup.mock.calls.filter(([host]) => host === new URL(LOCAL_JWKS_URI).hostname)).toEqual([]);
    } finally {
      lookup.mockRestore();
      fetchKeys.mockRestore();
    }
  });
});

describe('management keys', () => {
  it('creates a key shown once as tt_mk_ + 48 hex and lists it without the secret', async () => {
    const owner = await svc.token('keymaker');
    const r = await svc.req('POST', '/api/management-keys', { token: owner, body: { label: ' ci ', scopes: ['manage', 'read', 'read'] } });
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ id: expect.any(String), key: expect.stringMatching(/^tt_mk_[0-9a-f]{48}$/), label: 'ci', scopes: ['read', 'manage'], created_at: expect.any(String) });
    const list = await svc.req('GET', '/api/management-keys', { token: owner });
    expect(list.json.keys).toEqual([{ id: r.json.id, label: 'ci', scopes: ['read', 'manage'], created_at: r.json.created_at, last_used_at: null, revoked_at: null }]);
    expect(list.text).not.toContain(r.json.key);
  });

  it.each([
    [{ scopes: [] }, 'invalid scopes'],
    [{ scopes: ['admin'] }, 'invalid scopes'],
    [{}, 'invalid scopes'],
    [{ scopes: ['read'], label: 5 }, 'invalid label'],
  ])('refuses %j with %s', async (body, error) => {
    const r = await svc.req('POST', '/api/management-keys', { token: alice, body });
    expect([r.status, r.json]).toEqual([400, { error }]);
  });

  it('management keys cannot create management keys', async () => {
    const { key } = await svc.key(alice, ['read', 'manage', 'ingest']);
    expect((await svc.req('POST', '/api/management-keys', { token: key, body: { scopes: ['read'] } })).json).toEqual({
      error: 'management keys cannot call this endpoint',
    });
  });

  it('unknown and malformed keys answer 401 invalid or revoked management key', async () => {
    for (const token of [randomKey(), 'tt_mk_short', `tt_mk_${'A'.repeat(48)}`]) {
      const r = await svc.req('GET', '/api/sites', { token });
      expect([r.status, r.json]).toEqual([401, { error: 'invalid or revoked management key' }]);
    }
  });

  it('scopes do not include each other', async () => {
    const read = await svc.key(alice, ['read']);
    const manage = await svc.key(alice, ['manage']);
    const ingest = await svc.key(alice, ['ingest']);
    expect((await svc.req('GET', '/api/sites', { token: read.key })).status).toBe(200);
    expect((await svc.req('POST', '/api/sites', { token: read.key, body: { hostname: 'scoped-a.example' } })).json).toEqual({ error: 'scope manage required' });
    expect((await svc.req('GET', '/api/sites', { token: manage.key })).json).toEqual({ error: 'scope read required' });
    expect((await svc.req('GET', '/api/sites', { token: ingest.key })).json).toEqual({ error: 'scope read required' });
    expect((await svc.req('POST', '/api/sites', { token: manage.key, body: { hostname: 'scoped-b.example' } })).status).toBe(201);
    expect((await svc.req('GET', '/api/management-keys', { token: manage.key })).json).toEqual({ error: 'scope read required' });
  });

  it('a key works for every site of its owner and none of another account', async () => {
    const h = await svc.site(alice);
    const { key } = await svc.key(alice, ['read']);
    expect((await svc.req('GET', `/api/sites/${h}`, { token: key })).json.verify_token).toEqual(expect.any(String));
    const bob = await svc.token('bob');
    const bobs = await svc.key(bob, ['read']);
    expect((await svc.req('GET', `/api/sites/${h}`, { token: bobs.key })).json).toEqual({ error: 'unknown site' });
  });

  it('is checked before the site lookup, also on public sites', async () => {
    const h = await svc.site(alice);
    await svc.req('PATCH', `/api/sites/${h}`, { token: alice, body: { is_public: true } });
    expect((await svc.req('GET', `/api/sites/${h}`, { token: randomKey() })).status).toBe(401);
    const ingest = await svc.key(alice, ['ingest']);
    expect((await svc.req('GET', `/api/sites/${h}`, { token: ingest.key })).json).toEqual({ error: 'scope read required' });
    expect((await svc.req('GET', '/api/sites/nowhere.example', { token: ingest.key })).json).toEqual({ error: 'scope read required' });
  });

  it('a key that revokes itself is refused at once; sites it created stay', async () => {
    const k = await svc.key(alice, ['manage', 'read']);
    const created = await svc.req('POST', '/api/sites', { token: k.key, body: { hostname: 'made-by-key.example' } });
    expect(created.status).toBe(201);
    const r = await svc.req('DELETE', '/api/management-keys/self', { token: k.key });
    expect([r.status, r.json]).toEqual([200, { revoked: k.id }]);
    expect((await svc.req('GET', '/api/sites', { token: k.key })).json).toEqual({ error: 'invalid or revoked management key' });
    expect((await svc.req('GET', '/api/sites/made-by-key.example', { token: alice })).status).toBe(200);
    const list = await svc.req('GET', '/api/management-keys', { token: alice });
    expect(list.json.keys.find((x: { id: string }) => x.id === k.id).revoked_at).toMatch(/^\d{4}-/);
  });

  it('a manage key revokes another key; read keys and other accounts cannot', async () => {
    const owner = await svc.token('revoker');
    const target = await svc.key(owner, ['read']);
    const read = await svc.key(owner, ['read']);
    const manage = await svc.key(owner, ['manage']);
    const stranger = await svc.token('stranger');
    expect((await svc.req('DELETE', `/api/management-keys/${target.id}`, { token: read.key })).json).toEqual({ error: 'scope manage required' });
    expect((await svc.req('DELETE', `/api/management-keys/${target.id}`, { token: stranger })).status).toBe(404);
    expect((await svc.req('DELETE', `/api/management-keys/${target.id}`, { token: manage.key })).json).toEqual({ revoked: target.id });
    expect((await svc.req('GET', '/api/sites', { token: target.key })).status).toBe(401);
    expect((await svc.req('DELETE', `/api/management-keys/${target.id}`, { token: owner })).status).toBe(404);
    expect((await svc.req('DELETE', '/api/management-keys/self', { token: owner })).status).toBe(403);
  });

  it('allows 10 active keys; a revoked key frees a slot', async () => {
    const owner = await svc.token('keyring');
    const keys = await Promise.all(Array.from({ length: 12 }, () => svc.req('POST', '/api/management-keys', { token: owner, body: { scopes: ['ingest'] } })));
    const made = keys.filter((r) => r.status === 201);
    expect(made).toHaveLength(10);
    for (const r of keys.filter((x) => x.status !== 201)) expect([r.status, r.json]).toEqual([400, { error: 'management key limit reached' }]);
    await svc.req('DELETE', `/api/management-keys/${made[0]!.json.id}`, { token: owner });
    expect((await svc.req('POST', '/api/management-keys', { token: owner, body: { scopes: ['read'] } })).status).toBe(201);
    expect((await svc.req('POST', '/api/management-keys', { token: owner, body: { scopes: ['read'] } })).status).toBe(400);
  });

  it('records when a key was last used', async () => {
    const owner = await svc.token('lastused');
    const k = await svc.key(owner, ['read']);
    await svc.req('GET', '/api/sites', { token: k.key });
    const list = await svc.req('GET', '/api/management-keys', { token: owner });
    expect(list.json.keys[0].last_used_at).toMatch(/^\d{4}-/);
  });
});

describe('GET /api/me', () => {
  it('returns the key scopes and the site count for any scope', async () => {
    const owner = await svc.token('mallory');
    await svc.site(owner, { verify: false });
    await svc.site(owner, { verify: false });
    const ingest = await svc.key(owner, ['ingest']);
    const r = await svc.req('GET', '/api/me', { token: ingest.key });
    expect(r.json).toEqual({ uid: 'mallory', auth: 'management_key', scopes: ['ingest'], key_id: ingest.id, site_count: 2 });
    const byToken = await svc.req('GET', '/api/me', { token: owner });
    expect(byToken.json).toMatchObject({ uid: 'mallory', auth: 'id_token', site_count: 2 });
    expect((await svc.req('GET', '/api/me')).status).toBe(401);
  });
});

describe('change rate limit for management keys', () => {
  // The limiter reads the service clock: held still here, so the burst is judged at one instant however slow the machine.
  let at = Date.now();
  let clocked: TestService;
  beforeAll(async () => {
    clocked = await startTestService({}, { clock: { now: () => new Date(at) } });
  });
  afterAll(() => clocked.stop());

  it('allows a burst of 60 changes, then 429 with Retry-After: 1; reads are not limited', async () => {
    const svc = clocked;
    const owner = await svc.token('burst');
    const h = await svc.site(owner, { verify: false });
    const { key } = await svc.key(owner, ['manage', 'read']);
    const statuses: number[] = [];
    let limited;
    for (let i = 1; i <= 62; i++) {
      const r = await svc.req('PATCH', `/api/sites/${h}`, { token: key, body: { display_name: `v${i}` } });
      statuses.push(r.status);
      if (r.status === 429) limited = r;
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(60)).toEqual([429, 429]);
    expect(limited!.json).toEqual({ error: 'rate limited, retry in 1s' });
    expect(limited!.headers.get('retry-after')).toBe('1');
    expect((await svc.req('GET', '/api/sites', { token: key })).status).toBe(200);
    // ID tokens are not limited.
    expect((await svc.req('PATCH', `/api/sites/${h}`, { token: owner, body: { display_name: 'owner' } })).status).toBe(200);
    at += 1_100;
    expect((await svc.req('PATCH', `/api/sites/${h}`, { token: key, body: { display_name: 'later' } })).status).toBe(200);
  });
});
