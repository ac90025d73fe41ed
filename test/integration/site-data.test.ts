/**
 * Retention and erasure over HTTP (issue 42), on the local node (dynalite,
 * DuckDB): DELETE /api/sites/{h}/data's access matrix and input checks, the
 * erased days gone from the reports while the days around them stay;
 * retention_months on the site (PATCH, the setup read, its bounds); and
 * the daily purge run through the node's scheduler, its last run in GET …/setup.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registrationKey } from '#domain/registration.ts';
import { INVALID_RETENTION } from '#domain/data-retention/retention.ts';
import { row } from '../contract/report-store.contract.ts';
import { startTestService, unique, type TestService } from '../support/local-node.ts';

const DAY = 86_400;
const OWNER = 'erasure-owner';
/** Today's UTC midnight, Unix seconds. */
const TODAY = Math.floor(Date.now() / 1000 / DAY) * DAY;
const dayOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

let svc: TestService;
let owner: string;
let site: string;

/** Pageviews of `h` at noon of each of `days` days before today, each its own path `/d<n>`. */
async function seed(h: string, days: readonly number[]): Promise<void> {
  const registration = registrationKey(OWNER, h);
  await svc.node.runtime.events.saveEvents(days.map((n) => ({ ...row(h, TODAY - n * DAY + DAY / 2, { path: `/d${n}`, visitor: `v${n}`, unique: true }), registration })));
}

/** The paths of the site's pages over the last 90 days, and its pageviews there. */
async function pages(h: string): Promise<{ paths: string[]; pageviews: number }> {
  const range = `from=${TODAY - 90 * DAY}&to=${TODAY + DAY}`;
  const breakdown = await svc.req('GET', `/api/sites/${h}/breakdown?dim=pages&limit=100&${range}`, { token: owner });
  const overview = await svc.req('GET', `/api/sites/${h}/overview?${range}`, { token: owner });
  expect([breakdown.status, overview.status]).toEqual([200, 200]);
  return { paths: breakdown.json.rows.map((r: { name: string }) => r.name).sort(), pageviews: overview.json.totals.pageviews };
}

const erase = (h: string, query: string, token?: string) => svc.req('DELETE', `/api/sites/${h}/data${query}`, { token });

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token(OWNER);
  site = await svc.site(owner, { prefix: 'erased' });
  await seed(site, [5, 3, 2, 1]);
});
afterAll(() => svc.stop());

describe('DELETE /api/sites/{hostname}/data', () => {
  const range = `?from=${dayOf(TODAY - 3 * DAY)}&to=${dayOf(TODAY - 2 * DAY)}`;

  it('refuses no token, a management key, another account and an unknown site', async () => {
    expect([(await erase(site, range)).status, (await erase(site, range)).json]).toEqual([401, { error: 'sign in required' }]);
    const key = await svc.key(owner, ['read', 'manage']);
    const byKey = await erase(site, range, key.key);
    expect([byKey.status, byKey.json]).toEqual([403, { error: 'management keys cannot call this endpoint' }]);
    const other = await erase(site, range, await svc.token('another-account'));
    expect([other.status, other.json]).toEqual([404, { error: 'unknown site' }]);
    expect((await erase(unique('nobody'), range, owner)).status).toBe(404);
    expect((await pages(site)).paths).toEqual(['/d1', '/d2', '/d3', '/d5']);
  });

  it('refuses missing, malformed and reversed days with a 400', async () => {
    const required = { error: 'from and to are required, each a day as YYYY-MM-DD' };
    for (const query of ['', `?from=${dayOf(TODAY)}`, `?from=${TODAY}&to=${TODAY}`, '?from=2026-02-30&to=2026-03-01']) {
      const r = await erase(site, query, owner);
      expect([query, r.status, r.json]).toEqual([query, 400, required]);
    }
    const reversed = await erase(site, `?from=${dayOf(TODAY)}&to=${dayOf(TODAY - DAY)}`, owner);
    expect([reversed.status, reversed.json]).toEqual([400, { error: 'from must not be after to' }]);
  });

  it("removes the owner's rows of the days and answers what it removed; reports show none of them", async () => {
    const r = await erase(site, range, owner);
    expect([r.status, r.json]).toEqual([
      200,
      { hostname: site, from: dayOf(TODAY - 3 * DAY), to: dayOf(TODAY - 2 * DAY), removed: { events: 2, api_requests: 0, search_console: 0, crawler_hits: 0 } },
    ]);
    expect(await pages(site)).toEqual({ paths: ['/d1', '/d5'], pageviews: 2 });
    // Again: nothing left to remove.
    expect((await erase(site, range, owner)).json.removed).toEqual({ events: 0, api_requests: 0, search_console: 0, crawler_hits: 0 });
  });
});

describe('retention', () => {
  it('defaults to 25 months, set by PATCH and shown in the setup read, not in the site metadata', async () => {
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json.retention_months).toBe(25);
    const r = await svc.req('PATCH', `/api/sites/${site}`, { token: owner, body: { retention_months: 1 } });
    expect(r.status).toBe(200);
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json.retention_months).toBe(1);
    expect((await svc.req('GET', `/api/sites/${site}`, { token: owner })).json).not.toHaveProperty('retention_months');
  });

  it('refuses months out of 1..25 with the settings error', async () => {
    for (const months of [0, 26, 1.5, '12']) {
      const r = await svc.req('PATCH', `/api/sites/${site}`, { token: owner, body: { retention_months: months } });
      expect([months, r.status, r.json]).toEqual([months, 400, { error: INVALID_RETENTION }]);
    }
  });

  it('purges the rows past the limit daily and shows the last run in GET …/setup', async () => {
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json.last_purge).toBeNull();
    await seed(site, [40, 70]);
    const now = new Date();
    expect(await svc.node.scheduler.runNamed('retention-purge', now)).toBe(true);
    // One month: today's day of the month a month ago is gone, the day after it stays.
    expect((await pages(site)).paths).toEqual(['/d1', '/d5']);
    const setup = (await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json;
    expect(setup.last_purge).toMatchObject({ at: now.toISOString(), retention_months: 1, rows_removed: 2, oldest_row_kept: new Date((TODAY - 5 * DAY + DAY / 2) * 1000).toISOString() });
    expect(Date.parse(setup.last_purge.cutoff)).toBeGreaterThan((TODAY - 32 * DAY) * 1000);
    await svc.node.scheduler.runNamed('retention-purge', now);
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json.last_purge.rows_removed).toBe(0);
  });
});
