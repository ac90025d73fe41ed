/**
 * What a signed-in caller can make the service fetch from the web: counted
 * at the server that plays the sites. A page check is kept 60 s with one
 * fetch in flight per site, explicit checks are limited per account and per
 * site, and a site's icon is refreshed once however many read it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_PER_MINUTE, PAGE_CHECK_TTL_MS } from '#domain/site-checks.ts';
import { PLAIN_PAGE, startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;
/** The service's clock runs this far ahead of the real one. */
let ahead = 0;

beforeAll(async () => {
  svc = await startTestService({}, { clock: { now: () => new Date(Date.now() + ahead) } });
  owner = await svc.token('outbound-owner');
});
afterAll(() => svc.stop());

const setup = (hostname: string, token = owner) => svc.req('GET', `/api/sites/${hostname}/setup`, { token });
const verify = (hostname: string, token = owner) => svc.req('POST', `/api/sites/${hostname}/verify`, { token });

describe('page checks of the setup view', () => {
  it('fetch a site page once for 20 concurrent setup reads, and again only after 60 s', async () => {
    const site = await svc.site(owner, { prefix: 'setupcache', verify: false });
    svc.setPage(site, svc.scriptPage);
    const answers = await Promise.all(Array.from({ length: 20 }, () => setup(site)));
    expect(answers.map((r) => [r.status, r.json.script_found])).toEqual(Array.from({ length: 20 }, () => [200, true]));
    expect(svc.pageFetches(site)).toBe(1);
    await setup(site);
    expect(svc.pageFetches(site)).toBe(1);
    ahead += PAGE_CHECK_TTL_MS + 1_000;
    await setup(site);
    expect(svc.pageFetches(site)).toBe(2);
  });

  it('show the page as an explicit check just read it', async () => {
    const site = await svc.site(owner, { prefix: 'setupfresh', verify: false });
    svc.setPage(site, PLAIN_PAGE);
    expect((await setup(site)).json.script_found).toBe(false);
    svc.setPage(site, svc.scriptPage);
    expect((await verify(site)).json.verification.ok).toBe(true);
    const fetched = svc.pageFetches(site);
    expect((await setup(site)).json.script_found).toBe(true);
    expect(svc.pageFetches(site)).toBe(fetched);
  });
});

describe('explicit checks', () => {
  it(`allow ${CHECKS_PER_MINUTE} verify calls a minute per site, then 429 with the wait in the text and Retry-After`, async () => {
    const limited = await svc.token('outbound-site-limit');
    const site = await svc.site(limited, { prefix: 'verifylimit', verify: false });
    svc.setPage(site, PLAIN_PAGE);
    for (let i = 0; i < CHECKS_PER_MINUTE; i++) expect((await verify(site, limited)).status).toBe(200);
    const refused = await verify(site, limited);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatch(/^rate limited, retry in [1-6]s$/);
    expect(refused.headers.get('retry-after')).toBe(/retry in (\d+)s/.exec(refused.json.error)?.[1]);
    expect(svc.pageFetches(site)).toBe(CHECKS_PER_MINUTE);
    // A token back every 6 s.
    ahead += 6_000;
    expect((await verify(site, limited)).status).toBe(200);
  });

  it(`allow ${CHECKS_PER_MINUTE} verify calls a minute per account, whatever the site`, async () => {
    const busy = await svc.token('outbound-busy');
    const sites: string[] = [];
    for (let i = 0; i <= CHECKS_PER_MINUTE; i++) sites.push(await svc.site(busy, { prefix: `acct${i}`, verify: false }));
    for (const site of sites) svc.setPage(site, PLAIN_PAGE);
    const statuses = [];
    for (const site of sites) statuses.push((await verify(site, busy)).status);
    expect(statuses).toEqual([...Array.from({ length: CHECKS_PER_MINUTE }, () => 200), 429]);
    expect(svc.pageFetches(sites.at(-1) as string)).toBe(0);
    // Another account is not held back by this one.
    const fresh = await svc.token('outbound-fresh');
    const other = await svc.site(fresh, { prefix: 'acctother', verify: false });
    svc.setPage(other, PLAIN_PAGE);
    expect((await verify(other, fresh)).status).toBe(200);
  });
});

describe('icon refreshes', () => {
  it('fetch a stale icon once for 10 concurrent reads', async () => {
    const iconOwner = await svc.token('outbound-icon');
    const site = await svc.site(iconOwner, { prefix: 'iconflight', verify: false });
    svc.setPage(site, `<!doctype html><html><head><link rel="icon" href="/${site}/favicon.png"><script src="${svc.url}/latest.js"></script></head></html>`);
    expect((await verify(site, iconOwner)).json.verified_at).toBeTruthy();
    // The icon is gone (a week old, or never looked for): the next reads look again.
    await svc.node.services.icons.delete(site);
    ahead += PAGE_CHECK_TTL_MS + 1_000;
    const before = svc.pageFetches(site);
    const reads = await Promise.all(Array.from({ length: 10 }, () => svc.req('GET', `/api/sites/${site}/icon`, { token: iconOwner })));
    expect(reads.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 200));
    // One page check and one look at the icon it names.
    expect(svc.pageFetches(site) - before).toBe(2);
  });
});
