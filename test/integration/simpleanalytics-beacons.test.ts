/**
 * Beacons as the Simple Analytics script sends them (a site migrating keeps
 * that script for a while; spec part 2 shares its wire format), captured
 * shapes fed through the real collector over HTTP, and what the reports show:
 * campaign tags only inside `query`, JSON `brands` with GREASE entries, the
 * `brave` / `duck` flags, `metadata=[]` and `type=error`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestService, type TestService } from '../support/local-node.ts';

const CHROME_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
const OPERA_UA = `${CHROME_UA} OPR/110.0.0.0`;
const SAFARI_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
/** `JSON.stringify(navigator.userAgentData.brands)` of Chrome 156, GREASE entry included. */
const CHROME_BRANDS = '[{"brand":"Chromium","version":"156"},{"brand":"Not A;Brand","version":"24"},{"brand":"Google Chrome","version":"156"}]';
const EDGE_BRANDS = '[{"brand":"Not.A/Brand","version":"99"},{"brand":"Microsoft Edge","version":"156"},{"brand":"Chromium","version":"156"}]';

let svc: TestService;
let owner: string;

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('sa-beacons-owner');
});
afterAll(() => svc.stop());

/** The fields every beacon of the script carries (its `payload` object). */
const scriptPayload = (site: string, ua = CHROME_UA) => ({
  version: 11,
  ua,
  https: true,
  timezone: 'Europe/Amsterdam',
  hostname: site,
  page_id: randomUUID(),
  session_id: randomUUID(),
  sri: false,
  mobile: false,
  brands: CHROME_BRANDS,
});

/** A beacon through the image route, encoded as the script builds its URL (encodeURIComponent per key and value, `time` last). */
async function imageBeacon(data: Record<string, unknown>): Promise<void> {
  const query = Object.entries(data)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  const r = await svc.req('GET', `/simple.gif?${query}&time=${Date.now()}`, { headers: { 'user-agent': String(data.ua) } });
  expect([r.status, r.headers.get('content-type')], r.text).toEqual([200, 'image/gif']);
}

const imagePageview = (site: string, fields: Record<string, unknown>) =>
  imageBeacon({ ...scriptPayload(site), path: '/', viewport_width: 1280, viewport_height: 720, language: 'nl-NL', unique: true, id: randomUUID(), type: 'pageview', ...fields });

/** A pageview through the JSON route. */
async function jsonPageview(site: string, fields: Record<string, unknown>): Promise<void> {
  const body = { ...scriptPayload(site), path: '/', unique: true, id: randomUUID(), type: 'pageview', ...fields };
  const r = await svc.req('POST', '/events', { raw: JSON.stringify(body), headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': String(body.ua) } });
  expect([r.status, r.text]).toEqual([200, 'ok']);
}

const window = () => {
  const now = Math.floor(Date.now() / 1000);
  return `from=${now - 3600}&to=${now + 3600}`;
};

/** Breakdown rows as [name, value], after the queue has been written. */
async function breakdown(site: string, dim: string, extra = ''): Promise<[string, number][]> {
  await svc.node.runtime.eventQueue.drain();
  const r = await svc.req('GET', `/api/sites/${site}/breakdown?dim=${dim}&${window()}${extra}`, { token: owner });
  expect(r.status, r.text).toBe(200);
  return (r.json.rows as { name: string; value: number }[]).map((row) => [row.name, row.value]);
}

async function pageviews(site: string): Promise<number> {
  await svc.node.runtime.eventQueue.drain();
  const r = await svc.req('GET', `/api/sites/${site}/overview?${window()}`, { token: owner });
  expect(r.status, r.text).toBe(200);
  return r.json.totals.pageviews;
}

describe('campaign tags sent only inside query', () => {
  it('show in sources and every utm_* breakdown, on the image and the JSON route, UTM and plain form', async () => {
    const site = await svc.site(owner, { prefix: 'sa-utm' });
    await imagePageview(site, { query: 'utm_source=newsletter&utm_medium=email&utm_campaign=spring&utm_term=shoes&utm_content=header', referrer: 'news.example.com/story' });
    await jsonPageview(site, { query: '?ref=producthunt&campaign=launch' });
    await jsonPageview(site, { query: 'source=twitter&medium=social&term=boots&content=footer' });
    // The separate field wins over the same tag in query.
    await jsonPageview(site, { utm_source: 'partner', query: 'utm_source=ignored&utm_medium=referral' });

    // A tag naming a known source takes its name in sources (Twitter); the utm_* lists keep the tag as sent.
    expect(await breakdown(site, 'sources')).toEqual([['Twitter', 1], ['newsletter', 1], ['partner', 1], ['producthunt', 1]]);
    expect(await breakdown(site, 'utm_sources')).toEqual([['newsletter', 1], ['partner', 1], ['producthunt', 1], ['twitter', 1]]);
    expect(await breakdown(site, 'utm_mediums')).toEqual([['email', 1], ['referral', 1], ['social', 1]]);
    expect(await breakdown(site, 'utm_campaigns')).toEqual([['launch', 1], ['spring', 1]]);
    expect(await breakdown(site, 'utm_terms')).toEqual([['boots', 1], ['shoes', 1]]);
    expect(await breakdown(site, 'utm_contents')).toEqual([['footer', 1], ['header', 1]]);
    // The acquisition referrer is still the referrer: the tag only took precedence for the source.
    expect(await breakdown(site, 'referrers')).toEqual([['', 3], ['news.example.com', 1]]);
  });
});

describe('browsers from JSON brands', () => {
  it('names the browser by the most specific known brand, GREASE skipped, the UA where brands name none; brave and duck win', async () => {
    const site = await svc.site(owner, { prefix: 'sa-brands' });
    await jsonPageview(site, { brands: CHROME_BRANDS });
    await jsonPageview(site, { brands: EDGE_BRANDS });
    // URL-encoded once more on the image route.
    await imagePageview(site, { brands: encodeURIComponent(CHROME_BRANDS) });
    // Only GREASE: the user agent (Opera) decides.
    await imagePageview(site, { ua: OPERA_UA, brands: '[{"brand":"Not_A Brand","version":"8"}]' });
    // Brave's brands say Chrome; its flag names it. DuckDuckGo's UA says Safari.
    await imagePageview(site, { brave: 'true' });
    await imagePageview(site, { ua: SAFARI_UA, brands: undefined, mobile: undefined, duck: '1' });
    await jsonPageview(site, { brave: true });

    expect(await breakdown(site, 'browsers')).toEqual([['Brave', 2], ['Chrome', 2], ['DuckDuckGo', 1], ['Edge', 1], ['Opera', 1]]);
  });
});

describe('the script\'s other items', () => {
  it('answers type=error 200 on both routes, counts it as client_error and keeps it out of every report', async () => {
    const site = await svc.site(owner, { prefix: 'sa-error' });
    await jsonPageview(site, {});
    svc.node.services.collectorDrops.flush();
    const log = vi.spyOn(console, 'log');
    try {
      await imageBeacon({ ...scriptPayload(site), type: 'error', error: 'sa_event is not a function', url: `${site}/checkout` });
      const body = { ...scriptPayload(site), type: 'error', error: 'TypeError: x is undefined', url: `${site}/` };
      const json = await svc.req('POST', '/events', { raw: JSON.stringify(body) });
      expect([json.status, json.text]).toEqual([200, 'ok']);
      await svc.node.runtime.eventQueue.drain();
      svc.node.services.collectorDrops.flush();
      const counts = log.mock.calls.map(([line]) => JSON.parse(String(line))).find((l) => l.msg === 'collector drops')?.counts;
      expect(counts).toEqual({ client_error: 2 });
    } finally {
      log.mockRestore();
    }
    expect(await pageviews(site)).toBe(1);
    expect(await breakdown(site, 'pages')).toEqual([['/', 1]]);
    expect(await breakdown(site, 'events')).toEqual([]);
  });

  it('stores a pageview whose metadata is the script\'s empty []', async () => {
    const site = await svc.site(owner, { prefix: 'sa-meta' });
    await imagePageview(site, { path: '/pricing', metadata: '[]' });
    expect(await breakdown(site, 'pages')).toEqual([['/pricing', 1]]);
  });
});

describe('breakdown limit', () => {
  it('clamps 0 and negative limits to 1 row (DESIGN.md §4: 1..1000)', async () => {
    const site = await svc.site(owner, { prefix: 'limit' });
    for (const path of ['/a', '/b', '/b', '/c']) await jsonPageview(site, { path });
    expect(await breakdown(site, 'pages')).toEqual([['/b', 2], ['/a', 1], ['/c', 1]]);
    expect(await breakdown(site, 'pages', '&limit=0')).toEqual([['/b', 2]]);
    expect(await breakdown(site, 'pages', '&limit=-5')).toEqual([['/b', 2]]);
    expect(await breakdown(site, 'pages', '&limit=2')).toEqual([['/b', 2], ['/a', 1]]);
  });
});
