/**
 * Claiming another account's verified hostname by DNS, end to end over HTTP against the real
 * local service (real dynalite): the TXT record `tinytrack-claim=<token>` moves the hostname to the
 * claimant as a new registration, the old one ending as after a delete (its rows stay with it); no
 * record, someone's own or an unverified site, an expired claim move nothing; a delete or another
 * claim landing in between wins atomically. The page checker's DNS resolver is the one injected
 * here; everything else is the service's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { HttpPageChecker } from '#adapters/http-page-checker/http-page-checker.ts';
import { startTestService, unique, type Response, type TestService } from '../support/local-node.ts';

const DAY_MS = 86_400_000;
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let svc: TestService;
/** The service's clock runs `offset` ms ahead of the system's (only the last test moves it). */
let offset = 0;
/** TXT records by hostname, as the injected resolver answers them. */
const txt = new Map<string, string[][]>();
/** Runs while a TXT lookup is answered, before the answer (a delete landing mid-claim). */
let duringLookup: ((hostname: string) => Promise<void>) | null = null;

beforeAll(async () => {
  svc = await startTestService({}, { clock: { now: () => new Date(Date.now() + offset) } });
  const { services } = svc.node;
  services.pageChecker = new HttpPageChecker({
    urlTemplate: services.config.verifyUrlTemplate,
    allowPrivateAddresses: true,
    trackerScript: services.trackerScript,
    resolveTxt: async (hostname) => {
      await duringLookup?.(hostname);
      const records = txt.get(hostname);
      if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return records;
    },
  });
});
afterAll(() => svc.stop());

/** A fresh account (its ID token, and its id): each has its own 10 explicit checks a minute. */
async function account(name: string): Promise<{ token: string; uid: string }> {
  const uid = `${name}-${randomUUID().slice(0, 8)}`;
  return { token: await svc.token(uid), uid };
}
const claim = ({ token }: { token: string }, h: string) => svc.req('POST', `/api/sites/${h}/claim`, { token });
const verifyClaim = ({ token }: { token: string }, h: string) => svc.req('POST', `/api/sites/${h}/claim/verify`, { token });
const publish = (h: string, claimToken: string) => txt.set(h, [['v=spf1 -all'], [`tinytrack-claim=${claimToken}`]]);
const siteCount = async ({ token }: { token: string }) => (await svc.req('GET', '/api/me', { token })).json.site_count as number;
const read = ({ token }: { token: string }, method: string, path: string) => svc.req(method, path, { token });
const errorOf = (r: Response) => [r.status, r.json];

const NO_RECORD = [409, { error: 'the TXT record tinytrack-claim=<claim token> was not found on the hostname' }];
const NO_CLAIM = [404, { error: 'no active claim on this site; start one with POST /api/sites/{hostname}/claim' }];
const UNKNOWN = [404, { error: 'unknown site' }];

/** Pageviews of the site in the last hour, as `reader` reads them. */
async function pageviews(reader: { token: string }, h: string): Promise<number> {
  const to = Math.floor(Date.now() / 1000) + 60;
  const r = await read(reader, 'GET', `/api/sites/${h}/overview?from=${to - 3600}&to=${to}`);
  expect(r.status, r.text).toBe(200);
  return r.json.totals.pageviews as number;
}

/** One pageview, written to the store. */
async function collect(h: string): Promise<void> {
  const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname: h, path: '/', ua: CHROME, id: randomUUID(), timezone: 'Europe/Berlin' }) });
  expect(r.text).toBe('ok');
  await svc.node.runtime.eventQueue.drain();
}

describe('a DNS claim', () => {
  it('moves a verified site to the account that publishes the TXT record, as a new registration', async () => {
    const owner = await account('owner');
    const claimant = await account('claimant');
    const bystander = await account('bystander');
    const h = await svc.site(owner.token, { prefix: 'claimed' });
    const before = (await read(owner, 'GET', `/api/sites/${h}`)).json;
    await collect(h);
    expect(await pageviews(owner, h)).toBe(1);

    const started = await claim(claimant, h);
    expect(started.status, started.text).toBe(201);
    const token = started.json.claim_token as string;
    expect(started.json).toEqual({ hostname: h, claim_token: token, txt_record: `tinytrack-claim=${token}`, expires_at: expect.any(String) });
    const ttl = Date.parse(started.json.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(7 * DAY_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * DAY_MS + 1000);
    // One active claim per hostname and account: asking again gives the same one back.
    const again = await claim(claimant, h);
    expect([again.status, again.json]).toEqual([200, started.json]);
    // Another account's claim is its own, and goes with the registration it claimed.
    expect((await claim(bystander, h)).status).toBe(201);

    // Without the record nothing moves.
    expect(errorOf(await verifyClaim(claimant, h))).toEqual(NO_RECORD);
    txt.set(h, [[`tinytrack-claim=${token}x`], [`tinytrack-verification=${token}`]]);
    expect(errorOf(await verifyClaim(claimant, h))).toEqual(NO_RECORD);
    expect((await read(owner, 'GET', `/api/sites/${h}`)).json).toEqual(before);

    publish(h, token);
    const moved = await verifyClaim(claimant, h);
    expect(moved.status, moved.text).toBe(201);
    expect(moved.json).toEqual({
      hostname: h,
      display_name: '',
      is_public: false,
      created_at: expect.any(String),
      kind: 'web',
      verified_at: expect.stringMatching(/^\d{4}-/),
      verify_token: expect.any(String),
      reports_mode: 'inherit',
      pinned_at: null,
    });
    expect(moved.json.verify_token).not.toBe(before.verify_token);
    expect(moved.json.created_at > before.created_at).toBe(true);

    // The hostname is the claimant's now, and no longer the owner's.
    expect((await read(claimant, 'GET', `/api/sites/${h}`)).json).toEqual(moved.json);
    expect(errorOf(await read(owner, 'GET', `/api/sites/${h}`))).toEqual(UNKNOWN);
    const hostnames = async (who: { token: string }) => (await read(who, 'GET', '/api/sites')).json.sites.map((s: { hostname: string }) => s.hostname);
    expect([await hostnames(owner), await hostnames(claimant)]).toEqual([[], [h]]);
    expect([await siteCount(owner), await siteCount(claimant)]).toEqual([0, 1]);
    expect((await svc.node.services.registry.getSite(h))?.owner_uid).toBe(claimant.uid);
    // What was stored under the old registration went with it: the claims on it too.
    expect(await svc.node.services.registry.getClaim(h, bystander.uid)).toBeNull();
    expect(await svc.node.services.registry.getClaim(h, claimant.uid)).toBeNull();
    expect(errorOf(await verifyClaim(bystander, h))).toEqual(NO_CLAIM);
    expect(errorOf(await verifyClaim(claimant, h))).toEqual([409, { error: 'this site is already registered to your account' }]);

    // The old registration's rows stay with it: none of them for the claimant, only its own.
    expect(await pageviews(claimant, h)).toBe(0);
    await collect(h);
    expect(await pageviews(claimant, h)).toBe(1);
    // And the old owner cannot delete what is no longer theirs.
    expect(errorOf(await read(owner, 'DELETE', `/api/sites/${h}`))).toEqual(UNKNOWN);
  });

  it('is refused for an unknown hostname, your own site and an unverified one, and is checked only when started', async () => {
    const owner = await account('owner');
    const claimant = await account('claimant');
    const unknown = unique('nobody');
    expect(errorOf(await claim(claimant, unknown))).toEqual(UNKNOWN);
    expect(errorOf(await verifyClaim(claimant, unknown))).toEqual(UNKNOWN);

    const mine = await svc.site(owner.token, { prefix: 'mine' });
    expect(errorOf(await claim(owner, mine))).toEqual([409, { error: 'this site is already registered to your account' }]);
    const pending = await svc.site(owner.token, { prefix: 'pending', verify: false });
    const unverified = [409, { error: 'only a verified site can be claimed; an unverified registration lapses 7 days after it was made' }];
    expect(errorOf(await claim(claimant, pending))).toEqual(unverified);
    expect(errorOf(await verifyClaim(claimant, pending))).toEqual(unverified);

    // A record published without a claim started moves nothing.
    txt.set(mine, [['tinytrack-claim=tt-claim-guessed']]);
    expect(errorOf(await verifyClaim(claimant, mine))).toEqual(NO_CLAIM);
    expect((await read(owner, 'GET', `/api/sites/${mine}`)).status).toBe(200);
  });

  it('counts each check against the limit of explicit checks, with POST …/verify', async () => {
    const owner = await account('owner');
    const claimant = await account('claimant');
    const h = await svc.site(owner.token, { prefix: 'limited' });
    expect((await claim(claimant, h)).status).toBe(201);
    // The site's 10 a minute are shared with the owner's verify that svc.site made.
    const answers: Response[] = [];
    for (let i = 0; i < 11; i++) answers.push(await verifyClaim(claimant, h));
    const checked = answers.findIndex((r) => r.status === 429);
    expect(checked).toBeGreaterThanOrEqual(9);
    expect(answers.slice(0, checked).map(errorOf)).toEqual(Array(checked).fill(NO_RECORD));
    const r = answers[checked] as Response;
    expect([r.json.error, r.headers.get('retry-after')]).toEqual([expect.stringMatching(/^rate limited, retry in \d+s$/), expect.stringMatching(/^\d+$/)]);
  });
});

describe('a DNS claim racing', () => {
  /** A verified site of `owner` that `claimant` has claimed and published the record for. */
  async function claimedSite(owner: { token: string }, claimant: { token: string }, prefix: string): Promise<string> {
    const h = await svc.site(owner.token, { prefix });
    const started = await claim(claimant, h);
    expect(started.status).toBe(201);
    publish(h, started.json.claim_token);
    return h;
  }

  it('the owner\'s delete that lands during the check: the delete wins, the claimant takes no slot and can register the hostname', async () => {
    const owner = await account('owner');
    const claimant = await account('claimant');
    const h = await claimedSite(owner, claimant, 'deleted-mid-claim');
    let deleted: Response | null = null;
    duringLookup = async (name) => {
      if (name === h) deleted = await read(owner, 'DELETE', `/api/sites/${h}`);
    };
    try {
      expect(errorOf(await verifyClaim(claimant, h))).toEqual(UNKNOWN);
    } finally {
      duringLookup = null;
    }
    expect(deleted).toMatchObject({ status: 200, json: { deleted: h } });
    expect(await svc.node.services.registry.getSite(h)).toBeNull();
    expect([await siteCount(owner), await siteCount(claimant)]).toEqual([0, 0]);
    expect((await svc.req('POST', '/api/sites', { token: claimant.token, body: { hostname: h } })).status).toBe(201);
  });

  it('a delete sent at the same time: exactly one of them wins, and the registry agrees with the answers', async () => {
    for (let i = 0; i < 6; i++) {
      const owner = await account('owner');
      const claimant = await account('claimant');
      const h = await claimedSite(owner, claimant, 'race');
      const [claimed, deleted] = await Promise.all([verifyClaim(claimant, h), read(owner, 'DELETE', `/api/sites/${h}`)]);
      const site = await svc.node.services.registry.getSite(h);
      if (claimed.status === 201) {
        expect(errorOf(deleted)).toEqual(UNKNOWN);
        expect(site?.owner_uid).toBe(claimant.uid);
        expect((await read(claimant, 'GET', `/api/sites/${h}`)).status).toBe(200);
        expect([await siteCount(owner), await siteCount(claimant)]).toEqual([0, 1]);
      } else {
        expect([deleted.status, errorOf(claimed)]).toEqual([200, UNKNOWN]);
        expect(site).toBeNull();
        expect([await siteCount(owner), await siteCount(claimant)]).toEqual([0, 0]);
      }
    }
  });

  it('another claim: one claimant gets the hostname, the other nothing', async () => {
    const owner = await account('owner');
    const first = await account('first');
    const second = await account('second');
    const h = await svc.site(owner.token, { prefix: 'contested' });
    const tokens: string[] = [];
    for (const who of [first, second]) tokens.push((await claim(who, h)).json.claim_token as string);
    txt.set(h, tokens.map((t) => [`tinytrack-claim=${t}`]));
    const answers = await Promise.all([verifyClaim(first, h), verifyClaim(second, h)]);
    const winners = answers.filter((r) => r.status === 201);
    expect(winners).toHaveLength(1);
    const loser = answers.find((r) => r.status !== 201) as Response;
    expect([NO_CLAIM, [409, { error: 'the registration changed while the claim was checked; start a new claim' }]]).toContainEqual(errorOf(loser));
    const winner = answers[0]?.status === 201 ? first : second;
    expect((await svc.node.services.registry.getSite(h))?.owner_uid).toBe(winner.uid);
    expect([await siteCount(owner), await siteCount(first) + (await siteCount(second))]).toEqual([0, 1]);
  });
});

// Last: the clock only moves forward, so no cache outlives what it was read for.
describe('a claim past its 7 days', () => {
  it('checks nothing, and a new claim gets a new token', async () => {
    const owner = await account('owner');
    const claimant = await account('claimant');
    const h = await svc.site(owner.token, { prefix: 'expired' });
    const first = (await claim(claimant, h)).json.claim_token as string;
    publish(h, first);
    offset += 7 * DAY_MS + 60_000;
    expect(errorOf(await verifyClaim(claimant, h))).toEqual(NO_CLAIM);
    const renewed = await claim(claimant, h);
    expect(renewed.status).toBe(201);
    expect(renewed.json.claim_token).not.toBe(first);
    expect(errorOf(await verifyClaim(claimant, h))).toEqual(NO_RECORD);
    publish(h, renewed.json.claim_token);
    expect((await verifyClaim(claimant, h)).status).toBe(201);
  });
});
