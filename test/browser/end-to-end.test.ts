/**
 * The tracker against the real service: pages on their own origin load
 * latest.js from the local server (real collector, registered and verified
 * sites), and what the tracker sends is read back from the reports, or from
 * the stored rows for what no report lists (metadata). Wire-format details
 * stay in tracker.test.ts against a fake collector.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hidePage, html, launchChromium, scrollPage, startPageOrigin, USER_AGENT, type PageOrigin } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { FRESH_TABLE } from '#adapters/duckdb/duckdb-event-store.ts';

// Page-side globals used inside page.evaluate callbacks (the test tsconfig has no DOM lib).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const window: Any;
declare const navigator: Any;


let svc: TestService;
let owner: string;
let browser: Browser;
let pageSites: PageOrigin;
let pageOrigin: string;
let pages: Map<string, string>;

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('e2e-owner');
  // The pages' own origin is localhost; the script and beacons go to the service at 127.0.0.1.
  pageSites = await startPageOrigin();
  pageOrigin = pageSites.origin;
  pages = pageSites.pages;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  pageSites?.close();
  await svc.stop();
});

/** The tracker tag for `site`, served by the service. */
const tag = (site: string, attrs: Record<string, string> = {}) =>
  `<script async src="${svc.url}/latest.js" data-hostname="${site}"${Object.entries(attrs)
    .map(([k, v]) => ` data-${k}="${v}"`)
    .join('')}></script>`;

/** Serves a page (head markup, then a 2400 px tall body) at `path` and returns its URL. */
function servePage(path: string, head: string): string {
  pages.set(path, html(head, '<div style="height:2400px">content</div>'));
  return pageOrigin + path;
}

async function newPage(init?: () => void): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'ja-JP', userAgent: USER_AGENT, viewport: { width: 800, height: 600 } });
  if (init) await context.addInitScript(init);
  return { context, page: await context.newPage() };
}

const window24h = () => {
  const now = Math.floor(Date.now() / 1000);
  return `from=${now - 86_400}&to=${now + 3600}`;
};

async function report(site: string, path: string): Promise<Any> {
  const r = await svc.req('GET', `/api/sites/${site}/${path}${path.includes('?') ? '&' : '?'}${window24h()}`, { token: owner });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.json;
}

/** Breakdown rows as [name, value], once at least `count` rows show. */
async function breakdown(site: string, dim: string, count = 1): Promise<[string, number][]> {
  const read = async () => ((await report(site, `breakdown?dim=${dim}`)).rows as { name: string; value: number }[]).map((r): [string, number] => [r.name, r.value]);
  return svc.until(read, (rows) => rows.length >= count);
}

async function storedRows(site: string, minimum: number): Promise<Record<string, unknown>[]> {
  const read = () => svc.node.runtime.duckdb!.query<Record<string, unknown>>(`SELECT * FROM ${FRESH_TABLE} WHERE site = $site ORDER BY ts, rowid`, { site });
  return svc.until(read, (rows) => rows.length >= minimum);
}

describe('latest.js served by the local service', () => {
  it('stores the pageview, a custom event and the append on hide', async () => {
    const site = await svc.site(owner, { prefix: 'e2e' });
    const { context, page } = await newPage();
    await page.goto(`${servePage('/pricing', tag(site))}?utm_source=newsletter&secret=1`);
    await page.waitForFunction(() => typeof window.tt_event === 'function');
    await page.evaluate(() => new Promise<void>((done) => window.tt_event('Sign up', { plan: 'pro' }, done)));
    // With runBeforeUnload the close returns before the page has unloaded: the context stays open
    // until the append is stored, or closing it could cancel the beacon sent on hide.
    await page.close({ runBeforeUnload: true });
    const rows = await storedRows(site, 3);
    await context.close();
    const pageview = rows.find((r) => r.kind === 'pageview')!;
    expect(pageview).toMatchObject({ path: '/pricing', utm_source: 'newsletter', source: 'newsletter', country: 'JP', language: 'ja-JP', bot: false, unique: true });
    // The tracker reads the campaign tags from the address and sends no query string: nothing else of it is stored.
    expect(pageview.query).toBeNull();
    expect(rows.find((r) => r.kind === 'event')).toMatchObject({ event: 'Sign_up', metadata: '{"plan":"pro"}', path: '/pricing' });
    const append = rows.find((r) => r.kind === 'append')!;
    expect(append.original_id).toBe(pageview.id);
    expect(pageview.visitor).toMatch(/^[0-9a-f]{32}$/);
  }, 60_000);
});

describe('trying it on localhost (README "Try it locally")', () => {
  it("stores nothing from the plain snippet and says why in setup; setup's local_snippet stores the pageview", async () => {
    const site = await svc.site(owner, { prefix: 'e2e-local' });
    const setup = async () => (await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json;
    const { snippet, local_snippet } = await setup();
    const { context, page } = await newPage();
    await page.goto(servePage('/plain', snippet));
    await page.waitForFunction(() => typeof window.tt_event === 'function');
    const seen = await svc.until(setup, (s) => s.local_drops.length > 0);
    expect(seen.local_drops).toEqual([expect.objectContaining({ hostname: 'localhost', reason: 'invalid_hostname', advice: expect.stringContaining(`data-hostname="${site}"`) })]);
    await page.goto(servePage('/named', local_snippet));
    await page.waitForFunction(() => typeof window.tt_event === 'function');
    await context.close();
    expect((await storedRows(site, 1)).filter((r) => r.kind === 'pageview').map((r) => r.path)).toEqual(['/named']);
  }, 60_000);
});

describe('the tracker suite\'s beacons through the real collector', () => {
  const transports: [string, (() => void) | undefined][] = [
    ['sendBeacon to /events and /append', undefined],
    [
      'the image fallback (sendBeacon refused)',
      () => {
        navigator.sendBeacon = () => false;
      },
    ],
  ];
  for (const [transport, init] of transports) {
    it(`shows the pageview, its engagement append and an event in the reports, through ${transport}`, async () => {
      const site = await svc.site(owner, { prefix: 'e2e-append' });
      const { context, page } = await newPage(init);
      await page.clock.install({ time: new Date() });
      await page.goto(`${servePage('/long', tag(site))}?ref=hn`);
      await page.waitForFunction(() => typeof window.tt_event === 'function');
      await page.evaluate(() => new Promise<void>((done) => window.tt_event('Read more', done)));
      await page.clock.fastForward(12_000);
      await scrollPage(page, 600); // (600 + 600) / 2400 = 50 %
      await hidePage(page);
      const overview = await svc.until(
        () => report(site, 'overview'),
        (o) => o.totals.avg_duration_s !== null,
      );
      await context.close();
      expect(overview.totals.pageviews).toBe(1);
      expect(overview.totals.visitors).toBe(1);
      // The installed clock also runs on by itself: a slow machine adds a second between load and hide.
      expect(overview.totals.avg_duration_s).toBeGreaterThanOrEqual(12);
      expect(overview.totals.avg_duration_s).toBeLessThanOrEqual(13);
      expect(overview.totals.avg_scroll).toBe(50);
      expect(await breakdown(site, 'pages')).toEqual([['/long', 1]]);
      expect(await breakdown(site, 'sources')).toEqual([['hn', 1]]);
      expect(await breakdown(site, 'events')).toEqual([['Read_more', 1]]);
      expect(await breakdown(site, 'countries')).toEqual([['JP', 1]]);
    }, 60_000);
  }

  it('reports browser, OS and device from client hints: GREASE brands holding ";" skipped, Edge over Chromium', async () => {
    const site = await svc.site(owner, { prefix: 'e2e-hints' });
    const { context, page } = await newPage(() => {
      const hints = {
        brands: [
          { brand: 'Not A;Brand', version: '99' },
          { brand: 'Chromium', version: '124' },
          { brand: 'Microsoft Edge', version: '124' },
        ],
        mobile: true,
        platform: 'Android',
      };
      Object.defineProperty(window.Navigator.prototype, 'userAgentData', { get: () => hints, configurable: true });
    });
    await page.goto(servePage('/hints', tag(site)));
    const browsers = await breakdown(site, 'browsers');
    await context.close();
    expect(browsers).toEqual([['Edge', 1]]);
    expect(await breakdown(site, 'os')).toEqual([['Android', 1]]);
    expect(await breakdown(site, 'devices')).toEqual([['mobile', 1]]);
    const summary = await report(site, 'overview/summary');
    expect(summary.tech.browsers).toEqual([{ name: 'Edge', value: 1, visitors: 1 }]);
  }, 60_000);

  it('stores what data-metadata-collector returns on the pageview and the event (no report lists metadata)', async () => {
    const site = await svc.site(owner, { prefix: 'e2e-meta' });
    const { context, page } = await newPage();
    const head = `<script>window.tt_metadata={plan:'global',keep:1};
      window.collect=function(d){return {plan:'collector',from:d.type}}</script>${tag(site, { 'metadata-collector': 'collect' })}`;
    await page.goto(servePage('/meta', head));
    await page.waitForFunction(() => typeof window.tt_event === 'function');
    await page.evaluate(() => new Promise<void>((done) => window.tt_event('buy', { price: 5, plan: 'event' }, done)));
    await context.close();
    expect(await breakdown(site, 'events')).toEqual([['buy', 1]]);
    const rows = await storedRows(site, 2);
    const tracked = rows.filter((r) => r.kind !== 'append');
    expect(Object.fromEntries(tracked.map((r) => [r.kind, JSON.parse(String(r.metadata))]))).toEqual({
      pageview: { plan: 'collector', keep: 1, from: 'pageview' },
      event: { price: 5, plan: 'collector', keep: 1, from: 'event' },
    });
  }, 60_000);
});

describe('a site moving from Simple Analytics: data-namespace="sa" keeps sa_event and sa_metadata working', () => {
  const stubs = {
    'a stub pushing its arguments': 'window.sa_event=window.sa_event||function(){(sa_event.q=sa_event.q||[]).push(arguments)};',
    'the documented stub pushing argument arrays':
      'window.sa_event=window.sa_event||function(){var a=[].slice.call(arguments);window.sa_event.q?window.sa_event.q.push(a):window.sa_event.q=[a]};',
  };
  for (const [name, stub] of Object.entries(stubs)) {
    it(`replays events queued before load (${name}), sends later ones with metadata and callback, all with sa_metadata`, async () => {
      const site = await svc.site(owner, { prefix: 'e2e-sa' });
      const { context, page } = await newPage();
      const head = `<script>${stub}window.sa_metadata={author:'ann'};
        sa_event('queued signup');sa_event('queued_with_meta',{plan:'pro'});sa_event('queued_cb',function(){window.queuedCallback=1});</script>${tag(site, { namespace: 'sa' })}`;
      await page.goto(servePage('/blog', head));
      await page.waitForFunction(() => window.sa_event && !window.sa_event.q);
      const called = await page.evaluate(() => new Promise<number>((done) => window.sa_event('clicked', { button: 'buy' }, () => done(1))));
      expect(called).toBe(1);
      await page.waitForFunction(() => window.queuedCallback === 1);
      const events = await breakdown(site, 'events', 4);
      expect(await page.evaluate(() => [typeof window.tt_event, window.sa_tt_loaded])).toEqual(['undefined', 1]);
      await context.close();
      expect(events).toEqual([['clicked', 1], ['queued_cb', 1], ['queued_signup', 1], ['queued_with_meta', 1]]);
      expect(await breakdown(site, 'pages')).toEqual([['/blog', 1]]);
      const rows = await storedRows(site, 5);
      const metadata = Object.fromEntries(rows.filter((r) => r.kind !== 'append').map((r) => [r.event ?? r.kind, r.metadata === null ? null : JSON.parse(String(r.metadata))]));
      expect(metadata).toEqual({
        pageview: { author: 'ann' },
        queued_signup: { author: 'ann' },
        queued_with_meta: { plan: 'pro', author: 'ann' },
        queued_cb: { author: 'ann' },
        clicked: { button: 'buy', author: 'ann' },
      });
    }, 60_000);
  }
});
