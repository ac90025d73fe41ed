/**
 * The panels' data over HTTP (issue 40, part 3): exit pages, and one name per
 * source, browser and OS whether a row was collected or imported. Real
 * handlers, dynalite and DuckDB; beacons through the collector; history
 * through the import worker from a local fake of the Simple Analytics export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import { startFakeSimpleAnalytics, type FakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';

const DAY_MS = 86_400_000;
const utcDay = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const MAC_CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const MAC_SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const SOURCE_HOST = 'old-panels.example.org';

let svc: TestService;
let sa: FakeSimpleAnalytics;
let owner: string;
let site: string;

type Row = { name: string; value: number; visitors: number };
const breakdown = async (dim: string): Promise<Row[]> => {
  const now = Math.floor(Date.now() / 1000);
  const r = await svc.req('GET', `/api/sites/${site}/breakdown?dim=${dim}&limit=100&from=${now - 4 * 86_400}&to=${now + 60}`, { token: owner });
  expect(r.status, r.text).toBe(200);
  return r.json.rows;
};
const names = (rows: Row[]) => rows.map((r) => [r.name, r.value]);

async function collect(ua: string, path: string, over: Record<string, unknown> = {}) {
  const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, path, ua, ...over }), headers: { 'user-agent': ua } });
  expect(r.text).toBe('ok');
  // Each pageview its own millisecond: the order of a visit is its timestamps'.
  await sleep(5);
}

beforeAll(async () => {
  sa = await startFakeSimpleAnalytics();
  svc = await startTestService({ SIMPLEANALYTICS_BASE_URL: sa.url, IMPORT_RETRY_BASE_MS: '10' });
  owner = await svc.token('panels-owner');
  site = await svc.site(owner, { prefix: 'panels' });

  // Collected: a macOS Chrome visitor from Google's German search on / then /pricing (its client hints say
  // `macOS`, as the tracker sends them), a macOS Safari one (no hints: its user agent says `Mac OS`) on /docs.
  const hints = { os_name: 'macOS', brands: 'Chromium;124,Google Chrome;124,Not-A.Brand;99' };
  await collect(MAC_CHROME, '/', { ...hints, referrer: 'https://www.google.de/', unique: true });
  await collect(MAC_CHROME, '/pricing', hints);
  await collect(MAC_SAFARI, '/docs', { unique: true });

  // Imported: Simple Analytics' own names, one tagged utm_source=google, one referred by google.com.
  const at = Date.parse(`${utcDay(-1)}T12:00:00Z`) / 1000;
  const imported = { is_unique: true, browser_name: 'Chrome Mobile', os_name: 'Mac OS', device_type: 'mobile' };
  sa.setData(SOURCE_HOST, {
    pageviews: [
      { ...imported, added_unix: at, uuid: 'sa-1', path: '/imported-a', utm_source: 'google' },
      { ...imported, added_unix: at + 60, uuid: 'sa-2', path: '/imported-b', document_referrer: 'https://google.com/search?q=x' },
    ],
    events: [],
  });
  const job = await svc.req('POST', `/api/sites/${site}/imports`, {
    token: owner,
    body: { source: 'simpleanalytics', range_start: utcDay(-2), range_end: utcDay(-1), config: { user_id: 'sa_user', api_key: 'sa_api_key_panels', source_hostname: SOURCE_HOST } },
  });
  expect(job.status, job.text).toBe(201);
  await svc.until(
    () => svc.req('GET', `/api/sites/${site}/imports`, { token: owner }),
    (r) => r.json.imports.some((j: { status: string }) => j.status === 'succeeded'),
  );
  await svc.until(
    async () => ({ rows: await breakdown('pages') }),
    (r) => r.rows.reduce((n: number, row: Row) => n + row.value, 0) === 5,
  );
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await sa?.close();
});

describe('GET …/breakdown?dim=exit_pages', () => {
  it('counts each collected visit at its last pageview; imported rows, without a visitor hash, add none', async () => {
    expect(await breakdown('exit_pages')).toEqual([
      { name: '/docs', value: 1, visitors: 1 },
      { name: '/pricing', value: 1, visitors: 1 },
    ]);
  });
});

describe('one name for collected and imported rows', () => {
  it('lands google.de, google.com and utm_source=google in one Google source, while referrers keep the hosts', async () => {
    expect(names(await breakdown('sources'))).toEqual([['Google', 3]]);
    expect(names(await breakdown('referrers'))).toEqual([['', 3], ['google.com', 1], ['google.de', 1]]);
  });

  it('lands a collected macOS Chrome and an imported "Mac OS" "Chrome Mobile" in one OS and one browser row', async () => {
    expect(names(await breakdown('os'))).toEqual([['macOS', 5]]);
    expect(names(await breakdown('browsers'))).toEqual([['Chrome', 4], ['Safari', 1]]);
  });
});
