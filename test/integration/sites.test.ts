/** The site registry over HTTP against the real local service (spec part 4 "Site registry"). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PLAIN_PAGE, scriptPage, startTestService, unique, type TestService } from '../support/local-node.ts';
import { HttpPageChecker, type HttpPageCheckerOptions } from '#adapters/http-page-checker/http-page-checker.ts';

const WEB_INVALID = 'Enter a valid website address, such as example.com';
const API_INVALID = 'Enter a valid API hostname, such as api.example.com';

let svc: TestService;
let alice: string;
let bob: string;

beforeAll(async () => {
  svc = await startTestService();
  alice = await svc.token('alice');
  bob = await svc.token('bob');
});
afterAll(() => svc.stop());

const register = (token: string, hostname: unknown, kind?: unknown) =>
  svc.req('POST', '/api/sites', { token, body: kind === undefined ? { hostname } : { hostname, kind } });

describe('POST /api/sites', () => {
  it('normalizes the hostname and answers CreatedSite with 201', async () => {
    const name = unique('garden');
    const r = await register(alice, `  HTTPS://WWW.${name.toUpperCase()}/plants?x=1  `);
    expect(r.status).toBe(201);
    expect(r.json).toEqual({ hostname: `www.${name}`, verified_at: null, verify_token: expect.any(String), kind: 'web' });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('stores internationalized names in xn-- form', async () => {
    const r = await register(alice, `café-${unique('x')}`);
    expect(r.status).toBe(201);
    expect(r.json.hostname).toMatch(/^xn--caf-/);
  });

  it('rejects ports and IP addresses with the text for the kind', async () => {
    expect((await register(alice, 'shop.example:3000')).json).toEqual({ error: WEB_INVALID });
    expect((await register(alice, '192.0.2.15')).json).toEqual({ error: WEB_INVALID });
    const api = await register(alice, '[::1]', 'api');
    expect([api.status, api.json]).toEqual([400, { error: API_INVALID }]);
    expect((await register(alice, 'api.example:9000', 'api')).json).toEqual({ error: API_INVALID });
    expect((await svc.req('POST', '/api/sites', { token: alice, raw: 'not json' })).json).toEqual({ error: WEB_INVALID });
  });

  it('refuses an unknown kind', async () => {
    const r = await register(alice, unique(), 'app');
    expect([r.status, r.json]).toEqual([400, { error: 'kind must be web or api' }]);
  });

  it('answers 200 with the stored registration for the same owner and 409 for another account', async () => {
    const name = unique('library');
    const first = await register(alice, name);
    const again = await register(alice, `https://${name.toUpperCase()}/`);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const other = await register(bob, name);
    expect([other.status, other.json]).toEqual([409, { error: 'hostname is registered to another account' }]);
  });

  it('registers each hostname once when two accounts race for it', async () => {
    const name = unique('race');
    const results = await Promise.all([register(alice, name), register(bob, name), register(alice, name), register(bob, name)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => [200, 201, 409].includes(s))).toBe(true);
  });

  it('keeps www and the apex apart', async () => {
    const name = unique('apex');
    expect((await register(alice, name)).status).toBe(201);
    expect((await register(bob, `www.${name}`)).status).toBe(201);
  });

  it('defaults kind to web and accepts api', async () => {
    const web = await register(alice, unique('web'));
    expect([web.status, web.json.kind]).toEqual([201, 'web']);
    const api = await register(alice, unique('api'), 'api');
    expect([api.status, api.json.kind]).toEqual([201, 'api']);
  });
});

describe('site limit', () => {
  it('allows 50 sites per account, even when created concurrently, then 400 site limit reached', async () => {
    const owner = await svc.token('capacity');
    const results = await Promise.all(Array.from({ length: 55 }, (_, i) => register(owner, unique(`store${i}`))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(50);
    for (const r of results.filter((x) => x.status !== 201)) expect([r.status, r.json]).toEqual([400, { error: 'site limit reached' }]);
    const listed = await svc.req('GET', '/api/sites', { token: owner });
    expect(listed.json.sites).toHaveLength(50);
    // A deleted site frees its slot.
    const victim = listed.json.sites[0].hostname;
    expect((await svc.req('DELETE', `/api/sites/${victim}`, { token: owner })).status).toBe(200);
    expect((await register(owner, unique('again'))).status).toBe(201);
    expect((await register(owner, unique('over'))).json).toEqual({ error: 'site limit reached' });
  });
});

describe('GET /api/sites', () => {
  it('lists the caller’s sites: pinned first by most recent pin, then by creation', async () => {
    const owner = await svc.token('lister');
    const hosts: string[] = [];
    for (let i = 0; i < 4; i++) {
      hosts.push(await svc.site(owner, { prefix: `l${i}`, verify: false }));
      await new Promise((r) => setTimeout(r, 5));
    }
    const pin = (h: string, pinned: boolean) => svc.req('PATCH', `/api/sites/${h}`, { token: owner, body: { pinned } });
    expect((await pin(hosts[2]!, true)).json.pinned_at).toMatch(/^\d{4}-/);
    await new Promise((r) => setTimeout(r, 5));
    await pin(hosts[3]!, true);
    let list = await svc.req('GET', '/api/sites', { token: owner });
    expect(list.json.sites.map((s: { hostname: string }) => s.hostname)).toEqual([hosts[3], hosts[2], hosts[0], hosts[1]]);
    await pin(hosts[3]!, false);
    list = await svc.req('GET', '/api/sites', { token: owner });
    expect(list.json.sites.map((s: { hostname: string }) => s.hostname)).toEqual([hosts[2], hosts[0], hosts[1], hosts[3]]);
    expect(list.json.sites[0]).not.toHaveProperty('owner_uid');
    expect(Object.keys(list.json.sites[0]).sort()).toEqual(
      ['created_at', 'display_name', 'hostname', 'is_public', 'kind', 'pinned_at', 'reports_mode', 'verified_at', 'verify_token'].sort(),
    );
  });

  it('shows no other account’s sites', async () => {
    const mine = await svc.site(alice, { verify: false });
    const list = await svc.req('GET', '/api/sites', { token: bob });
    expect(list.json.sites.map((s: { hostname: string }) => s.hostname)).not.toContain(mine);
  });
});

describe('GET /api/sites/{hostname}', () => {
  it('gives the owner every field of a new private site', async () => {
    const h = await svc.site(alice, { verify: false });
    const r = await svc.req('GET', `/api/sites/${h}`, { token: alice });
    expect(r.json).toEqual({
      hostname: h, display_name: '', is_public: false, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), kind: 'web',
      verified_at: null, verify_token: expect.any(String), reports_mode: 'inherit', pinned_at: null,
    });
  });

  it('answers 404 unknown site for private, unverified, unknown or inaccessible sites', async () => {
    const verifiedPrivate = await svc.site(alice);
    const unverified = await svc.site(alice, { verify: false });
    // Asking for it public does not make an unverified site readable by others.
    await svc.req('PATCH', `/api/sites/${unverified}`, { token: alice, body: { is_public: true } });
    const expired = await svc.token('alice', -60);
    for (const h of [verifiedPrivate, unverified]) {
      for (const token of [undefined, bob, expired, 'garbage']) {
        const r = await svc.req('GET', `/api/sites/${h}`, { token });
        expect([h, r.status, r.json]).toEqual([h, 404, { error: 'unknown site' }]);
      }
    }
    expect((await svc.req('GET', `/api/sites/${unique('nowhere')}`, { token: alice })).json).toEqual({ error: 'unknown site' });
  });

  it('serves a verified public site anonymously without owner-only fields', async () => {
    const h = await svc.site(alice);
    expect((await svc.req('PATCH', `/api/sites/${h}`, { token: alice, body: { is_public: true, display_name: 'Open' } })).status).toBe(200);
    for (const token of [undefined, bob, 'not-a-jwt']) {
      const r = await svc.req('GET', `/api/sites/${h}`, { token });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ hostname: h, display_name: 'Open', is_public: true, created_at: expect.any(String), kind: 'web' });
    }
    await svc.req('PATCH', `/api/sites/${h}`, { token: alice, body: { is_public: false } });
    expect((await svc.req('GET', `/api/sites/${h}`)).status).toBe(404);
  });
});

describe('PATCH /api/sites/{hostname}', () => {
  it('answers UpdatedSite with a trimmed display name', async () => {
    const h = await svc.site(alice, { verify: false });
    const r = await svc.req('PATCH', `/api/sites/${h}`, { token: alice, body: { display_name: '  Team Blog ', reports_mode: 'inherit' } });
    expect(r.json).toEqual({ hostname: h, display_name: 'Team Blog', is_public: false, reports_mode: 'inherit', pinned_at: null });
  });

  it.each([
    [{ display_name: true }, 'invalid display name'],
    [{ display_name: 'x'.repeat(101) }, 'invalid display name'],
    [{ is_public: 'yes' }, 'invalid sharing setting'],
    [{ reports_mode: 'daily' }, 'invalid reports mode'],
    [{ pinned: 'no' }, 'invalid pin setting'],
    [[1, 2], 'invalid settings'],
    ['text', 'invalid settings'],
    [null, 'invalid settings'],
  ])('refuses %j with %s', async (body, error) => {
    const h = await svc.site(alice, { verify: false });
    const r = await svc.req('PATCH', `/api/sites/${h}`, { token: alice, raw: JSON.stringify(body) });
    expect([r.status, r.json]).toEqual([400, { error }]);
  });

  it('refuses a body that is not JSON', async () => {
    const h = await svc.site(alice, { verify: false });
    const r = await svc.req('PATCH', `/api/sites/${h}`, { token: alice, raw: 'display_name=x' });
    expect(r.json).toEqual({ error: 'invalid settings' });
  });

  it('will not make an unverified site public', async () => {
    const h = await svc.site(alice, { verify: false });
    const r = await svc.req('PATCH', `/api/sites/${h}`, { token: alice, body: { is_public: true } });
    expect([r.status, r.json]).toEqual([400, { error: 'verify domain ownership before making the site public' }]);
  });

  it('answers 401 without credentials and 404 for another account', async () => {
    const h = await svc.site(alice, { verify: false });
    expect((await svc.req('PATCH', `/api/sites/${h}`, { body: { display_name: 'x' } })).json).toEqual({ error: 'sign in required' });
    expect((await svc.req('PATCH', `/api/sites/${h}`, { token: bob, body: { display_name: 'x' } })).json).toEqual({ error: 'unknown site' });
  });
});

describe('DELETE /api/sites/{hostname}', () => {
  it('deletes with the owner ID token only; a second delete is 404', async () => {
    const h = await svc.site(alice);
    const { key } = await svc.key(alice, ['read', 'manage']);
    expect((await svc.req('DELETE', `/api/sites/${h}`, { token: key })).json).toEqual({ error: 'management keys cannot call this endpoint' });
    expect((await svc.req('DELETE', `/api/sites/${h}`, { token: bob })).json).toEqual({ error: 'unknown site' });
    expect((await svc.req('DELETE', `/api/sites/${h}`)).json).toEqual({ error: 'sign in required' });
    const d = await svc.req('DELETE', `/api/sites/${h}`, { token: alice });
    expect([d.status, d.json]).toEqual([200, { deleted: h }]);
    expect((await svc.req('DELETE', `/api/sites/${h}`, { token: alice })).status).toBe(404);
    expect((await svc.req('GET', `/api/sites/${h}`, { token: alice })).status).toBe(404);
    // The hostname is free again, for anyone.
    expect((await register(bob, h)).status).toBe(201);
  });
});

describe('an unverified registration holds its hostname for 7 days', () => {
  const DAY_MS = 86_400_000;
  /** Runs `fn` with the service's clock moved `days` ahead. */
  async function daysLater<T>(days: number, fn: () => Promise<T>): Promise<T> {
    const services = svc.node.services;
    const clock = services.clock;
    services.clock = { now: () => new Date(clock.now().getTime() + days * DAY_MS) };
    try {
      return await fn();
    } finally {
      services.clock = clock;
    }
  }
  const siteCount = async (token: string) => (await svc.req('GET', '/api/me', { token })).json.site_count as number;
  const listed = async (token: string) => ((await svc.req('GET', '/api/sites', { token })).json.sites as { hostname: string }[]).map((s) => s.hostname);

  it('goes to another account registering it after 8 days unverified; the first account loses it and its slot', async () => {
    const squatter = await svc.token('squatter-8');
    const owner = await svc.token('owner-8');
    const h = await svc.site(squatter, { prefix: 'lapsed', verify: false });
    const first = (await svc.req('GET', `/api/sites/${h}`, { token: squatter })).json;
    const slots = await siteCount(squatter);

    const taken = await daysLater(8, () => register(owner, h));
    expect(taken.status, taken.text).toBe(201);
    expect(taken.json).toEqual({ hostname: h, verified_at: null, verify_token: expect.any(String), kind: 'web' });
    expect(taken.json.verify_token).not.toBe(first.verify_token);
    const now = (await svc.req('GET', `/api/sites/${h}`, { token: owner })).json;
    expect(now.verify_token).toBe(taken.json.verify_token);
    expect(Date.parse(now.created_at) - Date.parse(first.created_at)).toBeGreaterThanOrEqual(8 * DAY_MS - 60_000);

    expect(await siteCount(squatter)).toBe(slots - 1);
    expect(await listed(squatter)).not.toContain(h);
    expect(await listed(owner)).toContain(h);
    expect((await svc.req('GET', `/api/sites/${h}`, { token: squatter })).json).toEqual({ error: 'unknown site' });
    // The new registration holds the hostname in turn: the first account cannot take it back.
    const back = await daysLater(8, () => register(squatter, h));
    expect([back.status, back.json]).toEqual([409, { error: 'hostname is registered to another account' }]);
    // Verifying installs the real owner's token, not the squatter's.
    svc.setPage(h, `<meta name="tinytrack-verification" content="${first.verify_token}">`);
    expect((await svc.req('POST', `/api/sites/${h}/verify`, { token: owner })).json.verified_at).toBeNull();
  });

  it('still holds after 6 days: another account gets 409 and the registration stays', async () => {
    const squatter = await svc.token('squatter-6');
    const h = await svc.site(squatter, { prefix: 'pending', verify: false });
    const r = await daysLater(6, () => register(bob, h));
    expect([r.status, r.json]).toEqual([409, { error: 'hostname is registered to another account' }]);
    expect(await listed(squatter)).toContain(h);
    expect((await svc.req('GET', `/api/sites/${h}`, { token: squatter })).status).toBe(200);
  });

  it('never lapses once verified', async () => {
    const owner = await svc.token('verified-owner');
    const h = await svc.site(owner, { prefix: 'verified' });
    for (const days of [8, 400]) {
      const r = await daysLater(days, () => register(bob, h));
      expect([r.status, r.json]).toEqual([409, { error: 'hostname is registered to another account' }]);
    }
    expect(await listed(owner)).toContain(h);
  });

  it("goes to exactly one of two accounts claiming it at once, and the first account's slot is given back once", async () => {
    const squatter = await svc.token('squatter-race');
    const [b, c] = [await svc.token('claimant-b'), await svc.token('claimant-c')];
    for (let round = 0; round < 3; round++) {
      const h = await svc.site(squatter, { prefix: `race-lapsed-${round}`, verify: false });
      const slots = await siteCount(squatter);
      const results = await daysLater(8, () => Promise.all([register(b, h), register(c, h)]));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect(await siteCount(squatter)).toBe(slots - 1);
      const winner = results[0]?.status === 201 ? b : c;
      expect(await listed(winner)).toContain(h);
    }
  });
});

describe('verification', () => {
  it('POST …/verify verifies a site whose page has the script tag, and keeps the first time', async () => {
    const h = await svc.site(alice, { verify: false });
    svc.setPage(h, PLAIN_PAGE);
    const before = await svc.req('POST', `/api/sites/${h}/verify`, { token: alice });
    expect([before.status, before.json.verified_at]).toEqual([200, null]);
    svc.setPage(h, svc.scriptPage);
    const after = await svc.req('POST', `/api/sites/${h}/verify`, { token: alice });
    expect(after.json.verified_at).toMatch(/^\d{4}-/);
    const again = await svc.req('POST', `/api/sites/${h}/verify`, { token: alice });
    expect(again.json.verified_at).toBe(after.json.verified_at);
  });

  it('accepts the verify token on the page instead of the script', async () => {
    const h = await svc.site(alice, { verify: false });
    const token = (await svc.req('GET', `/api/sites/${h}`, { token: alice })).json.verify_token;
    svc.setPage(h, `<html><head><meta name="tinytrack-verification" content="${token}"></head></html>`);
    expect((await svc.req('POST', `/api/sites/${h}/verify`, { token: alice })).json.verified_at).toMatch(/^\d{4}-/);
  });

  it('GET …/setup reports the installation state', async () => {
    const h = await svc.site(alice, { verify: false });
    svc.setPage(h, svc.scriptPage);
    const r = await svc.req('GET', `/api/sites/${h}/setup`, { token: alice });
    expect(r.json).toEqual({
      verified: false,
      verified_at: null,
      script_found: true,
      last_seen_at: null,
      verification: { ok: true, method: 'script', reason: null, detail: expect.any(String) },
      last_check: null,
      snippet: `<script async src="${svc.url}/latest.js"></script>`,
      local_snippet: `<script async src="${svc.url}/latest.js" data-hostname="${h}"></script>`,
      recent_drops: [],
      local_drops: [],
      redirect_hosts: [],
      embed_origins: [],
      retention_months: 25,
      last_purge: null,
    });
    expect((await svc.req('GET', `/api/sites/${h}/setup`, { token: bob })).json).toEqual({ error: 'unknown site' });
  });

  it('needs manage to verify and read for setup', async () => {
    const h = await svc.site(alice, { verify: false });
    const read = await svc.key(alice, ['read']);
    const manage = await svc.key(alice, ['manage']);
    expect((await svc.req('POST', `/api/sites/${h}/verify`, { token: read.key })).json).toEqual({ error: 'scope manage required' });
    expect((await svc.req('GET', `/api/sites/${h}/setup`, { token: manage.key })).json).toEqual({ error: 'scope read required' });
  });
});

describe('what verification accepts', () => {
  // Each test its own account: an account has 10 explicit checks a minute.
  let verifier: string;
  beforeEach(async () => {
    verifier = await svc.token(`verifier-${unique('t')}`);
  });
  const tokenOf = async (h: string) => (await svc.req('GET', `/api/sites/${h}`, { token: verifier })).json.verify_token as string;
  const verify = (h: string) => svc.req('POST', `/api/sites/${h}/verify`, { token: verifier });
  const setup = (h: string) => svc.req('GET', `/api/sites/${h}/setup`, { token: verifier });
  const passed = (method: string) => ({ ok: true, method, reason: null, detail: expect.any(String) });
  const failed = (reason: string, detail: unknown = expect.any(String)) => ({ ok: false, method: null, reason, detail });

  /** Runs `fn` with the service's page checker built from `options` (a fake resolver), then puts the real one back. */
  async function withChecker(options: Partial<HttpPageCheckerOptions>, fn: () => Promise<void>) {
    const services = svc.node.services;
    const original = services.pageChecker;
    services.pageChecker = new HttpPageChecker({ urlTemplate: services.config.verifyUrlTemplate, allowPrivateAddresses: true, trackerScript: services.trackerScript, ...options });
    try {
      await fn();
    } finally {
      services.pageChecker = original;
    }
  }

  it("does not verify with Simple Analytics' own snippet, and says why in POST …/verify and setup", async () => {
    const h = await svc.site(verifier, { verify: false });
    svc.setPage(h, scriptPage('https://scripts.simpleanalyticscdn.com'));
    const r = await verify(h);
    expect(r.status).toBe(200);
    expect(r.json.verified_at).toBeNull();
    expect(r.json.verification).toEqual(failed('foreign_script'));
    expect(r.json.verification.detail).toContain('https://scripts.simpleanalyticscdn.com/latest.js');
    expect(r.json.verification.detail).toContain(`${svc.url}/latest.js`);
    const s = await setup(h);
    expect(s.json).toMatchObject({ verified: false, script_found: false, verification: failed('foreign_script') });
    expect(s.json.last_check).toEqual({ ...failed('foreign_script'), checked_at: expect.stringMatching(/^\d{4}-/), trigger: 'verify' });
  });

  it('does not verify with the token in an HTML comment or in body text', async () => {
    const h = await svc.site(verifier, { verify: false });
    const token = await tokenOf(h);
    for (const page of [`<html><head><!-- ${token} --></head><body></body></html>`, `<html><head></head><body><p>nice post ${token}</p></body></html>`]) {
      svc.setPage(h, page);
      const r = await verify(h);
      expect([r.json.verified_at, r.json.verification], page).toEqual([null, failed('token_missing')]);
    }
  });

  it('does not verify through a redirect to another host, and reports the redirect', async () => {
    const h = await svc.site(verifier, { verify: false });
    const elsewhere = unique('elsewhere');
    svc.setPage(elsewhere, svc.scriptPage);
    // localhost is the same server under another name: only the hostname differs.
    svc.setRedirect(h, `${svc.pagesUrl.replace('127.0.0.1', 'localhost')}/${elsewhere}/`);
    const r = await verify(h);
    expect([r.status, r.json.verified_at]).toEqual([200, null]);
    expect(r.json.verification).toEqual(failed('redirect_off_site', expect.stringMatching(/^the page redirects to localhost:\d+, another site/)));
    expect((await setup(h)).json.last_check).toMatchObject({ reason: 'redirect_off_site', trigger: 'verify' });
  });

  it('follows a redirect on the same host', async () => {
    const h = await svc.site(verifier, { verify: false });
    const moved = unique('moved');
    svc.setPage(moved, svc.scriptPage);
    svc.setRedirect(h, `/${moved}/`);
    expect((await verify(h)).json.verification).toEqual(passed('script'));
  });

  it('reports an unreachable page with its status', async () => {
    const h = await svc.site(verifier, { verify: false });
    const r = await verify(h);
    expect(r.json.verification).toEqual(failed('unreachable', 'the page could not be read: HTTP 404'));
  });

  it("verifies with the script from the service's own origin, the default PUBLIC_URL", async () => {
    const h = await svc.site(verifier, { verify: false });
    svc.setPage(h, svc.scriptPage);
    const r = await verify(h);
    expect(r.json.verified_at).toMatch(/^\d{4}-/);
    expect(r.json.verification).toEqual(passed('script'));
    expect((await setup(h)).json.last_check).toMatchObject({ ok: true, method: 'script', reason: null, trigger: 'verify' });
  });

  it.each([
    ['a relative src', 'latest.js', (h: string) => `/${h}/latest.js`],
    ['a root-relative proxied path', '/stats/latest.js', () => '/stats/latest.js'],
  ])('verifies with a tracker proxied on the site that serves this service\'s latest.js: %s', async (_, src, path) => {
    const h = await svc.site(verifier, { verify: false });
    svc.setPage(h, `<html><head><script defer src="${src}"></script></head></html>`);
    // As the proxy got it from this service.
    svc.setFile(path(h), (await svc.req('GET', '/latest.js')).text);
    const r = await verify(h);
    expect([r.json.verified_at, r.json.verification]).toEqual([expect.stringMatching(/^\d{4}-/), passed('script')]);
    expect((await setup(h)).json.script_found).toBe(true);
  });

  it('does not verify with another script named latest.js on the site (MathJax), on POST …/verify or on collection', async () => {
    const h = await svc.site(verifier, { verify: false });
    svc.setPage(h, '<html><head><script src="static/mathjax/latest.js"></script></head><body>$$e^{i\\pi}+1=0$$</body></html>');
    svc.setFile(`/${h}/static/mathjax/latest.js`, 'window.MathJax={version:"3.2.2",loader:{load:["input/tex","output/chtml"]}};');
    const script = `${svc.pagesUrl}/${h}/static/mathjax/latest.js`;
    const beacon = await svc.req('POST', '/events', { body: { hostname: h, path: '/' } });
    expect(beacon.text).toBe('ok');
    expect((await setup(h)).json).toMatchObject({ verified: false, script_found: false, last_check: { ok: false, reason: 'foreign_script', trigger: 'collect' } });
    const r = await verify(h);
    expect([r.status, r.json.verified_at]).toEqual([200, null]);
    expect(r.json.verification).toEqual(failed('foreign_script', expect.stringContaining(`the page loads ${script} from this site, but it is not this service's script`)));
  });

  it('verifies with the token in a meta tag in head or in the data-verification attribute', async () => {
    for (const place of [
      (t: string) => `<html><head><meta name="tinytrack-verification" content="${t}"></head><body>hi</body></html>`,
      (t: string) => `<html><head></head><body><script async src="https://cdn.example.test/app.js" data-verification="${t}"></script></body></html>`,
    ]) {
      const h = await svc.site(verifier, { verify: false });
      svc.setPage(h, place(await tokenOf(h)));
      const r = await verify(h);
      expect([r.json.verified_at, r.json.verification]).toEqual([expect.stringMatching(/^\d{4}-/), passed('token')]);
    }
  });

  it('follows a redirect between the apex and www.', async () => {
    const h = await svc.site(verifier, { verify: false });
    const port = new URL(svc.pagesUrl).port;
    // Pages by name (Host header), every name resolving to the page server.
    const options = { urlTemplate: `http://{hostname}:${port}/`, lookup: async () => [{ address: '127.0.0.1', family: 4 }] };
    svc.setRedirect(h, `http://www.${h}:${port}/`);
    svc.setPage(`www.${h}`, svc.scriptPage);
    await withChecker(options, async () => {
      const r = await verify(h);
      expect([r.json.verified_at, r.json.verification]).toEqual([expect.stringMatching(/^\d{4}-/), passed('script')]);
    });
  });

  it('verifies by DNS TXT record on POST …/verify only, never on collection', async () => {
    const h = await svc.site(verifier, { verify: false });
    const token = await tokenOf(h);
    svc.setPage(h, PLAIN_PAGE);
    const asked: string[] = [];
    const resolveTxt = async (name: string) => {
      asked.push(name);
      return name === h ? [['v=spf1 -all'], [`tinytrack-verification=${token}`]] : [];
    };
    await withChecker({ resolveTxt }, async () => {
      const beacon = await svc.req('POST', '/events', { body: { hostname: h, path: '/' } });
      expect(beacon.text).toBe('ok');
      expect(asked).toEqual([]);
      const s = await setup(h);
      expect([s.json.verified, s.json.last_check]).toEqual([false, expect.objectContaining({ ok: false, reason: 'no_script', trigger: 'collect' })]);
      const r = await verify(h);
      expect([r.json.verified_at, r.json.verification]).toEqual([expect.stringMatching(/^\d{4}-/), passed('dns')]);
      expect(asked).toEqual([h]);
    });
  });

  it('does not verify by a DNS TXT record holding another token', async () => {
    const h = await svc.site(verifier, { verify: false });
    svc.setPage(h, PLAIN_PAGE);
    await withChecker({ resolveTxt: async () => [['tinytrack-verification=tt-verify-someone-else']] }, async () => {
      const r = await verify(h);
      expect([r.json.verified_at, r.json.verification]).toEqual([null, failed('no_script')]);
    });
  });
});

describe('PUBLIC_URL', () => {
  let other: TestService;
  beforeAll(async () => {
    other = await startTestService({ PUBLIC_URL: 'https://cdn.tinytrack.test, https://t.example.test/tt' });
  });
  afterAll(() => other.stop());

  it('verifies with latest.js on any listed origin, a path prefix included, and words the advice with them', async () => {
    const owner = await other.token('carol');
    for (const origin of ['https://cdn.tinytrack.test', 'https://t.example.test/tt']) {
      const h = await other.site(owner, { verify: false });
      other.setPage(h, scriptPage(origin));
      const r = await other.req('POST', `/api/sites/${h}/verify`, { token: owner });
      expect([r.json.verified_at, r.json.verification.method], origin).toEqual([expect.stringMatching(/^\d{4}-/), 'script']);
    }
    const h = await other.site(owner, { verify: false });
    other.setPage(h, scriptPage('https://scripts.simpleanalyticscdn.com'));
    const r = await other.req('POST', `/api/sites/${h}/verify`, { token: owner });
    expect(r.json.verification.reason).toBe('foreign_script');
    expect(r.json.verification.detail).toContain('https://cdn.tinytrack.test/latest.js or https://t.example.test/tt/latest.js');
  });

  it('gives in GET …/setup the script tag from the first origin, its path prefix kept', async () => {
    const owner = await other.token('dave');
    const h = await other.site(owner, { verify: false });
    const setup = await other.req('GET', `/api/sites/${h}/setup`, { token: owner });
    expect(setup.json.snippet).toBe('<script async src="https://cdn.tinytrack.test/latest.js"></script>');
    const prefixed = await startTestService({ PUBLIC_URL: 'https://t.example.test/tt/' });
    try {
      const token = await prefixed.token('erin');
      const p = await prefixed.site(token, { verify: false });
      expect((await prefixed.req('GET', `/api/sites/${p}/setup`, { token })).json.snippet).toBe('<script async src="https://t.example.test/tt/latest.js"></script>');
    } finally {
      await prefixed.stop();
    }
  });
});
