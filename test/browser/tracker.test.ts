/**
 * latest.js in real headless Chromium (spec part 4 rule 8, part 6 rules 1–5,
 * DESIGN.md §4 "Collector"): the exact beacons each page behaviour sends.
 * Chromium missing means these tests fail; they are never skipped.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hidePage, html, issuedBeacons, launchChromium, scrollPage, startTrackerServer, type Beacon, type Issued, type TrackerServer } from '../support/browser.ts';

// Page-side globals used inside page.evaluate callbacks (the test tsconfig has no DOM lib).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const window: Any;
declare const document: Any;
declare const history: Any;
declare const location: Any;
declare const navigator: Any;
declare const localStorage: Any;
declare const sessionStorage: Any;

const HEX = /^[0-9a-f]{32}$/;
const TZ = 'Europe/Amsterdam';
const LANG = 'nl-NL';
const isMarker = (b: Beacon) => (b.body as Record<string, unknown> | undefined)?.event === 'zz_marker' || b.query.event === 'zz_marker';

/**
 * The beacons that arrived before a marker event the page sends now, once it
 * has arrived: an absence is asserted after a positive signal, so a late
 * beacon fails the test instead of slipping past a fixed wait.
 */
async function beforeMarker(namespace = 'tt'): Promise<Beacon[]> {
  const markers = srv.beacons.filter(isMarker).length;
  await page.evaluate((ns) => (window as unknown as Record<string, (name: string) => void>)[`${ns}_event`]!('zz_marker'), namespace);
  const all = await srv.waitFor((b) => b.filter(isMarker).length > markers);
  return all.slice(0, all.indexOf(all.filter(isMarker)[markers] as Beacon));
}

let browser: Browser;
let srv: TrackerServer;
let ctx: BrowserContext;
let page: Page;
let issued: Issued[];
let pageErrors: string[];

interface Env {
  ua: string;
  brands: string;
  mobile: boolean;
  os_name: string;
  screen_width: number;
  screen_height: number;
}
let env: Env;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  srv = await startTrackerServer();
  ctx = await browser.newContext({ timezoneId: TZ, locale: LANG, viewport: { width: 800, height: 600 } });
  // Counts crypto.randomUUID calls: ids must never depend on it (absent on http pages).
  await ctx.addInitScript(() => {
    window.__randomUUIDCalls = 0;
    if (window.crypto && window.crypto.randomUUID) {
      const original = window.crypto.randomUUID.bind(window.crypto);
      window.crypto.randomUUID = () => {
        window.__randomUUIDCalls++;
        return original();
      };
    }
  });
  page = await ctx.newPage();
  issued = issuedBeacons(page);
  pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
});
afterEach(async () => {
  await ctx.close();
  await srv.close();
  expect(pageErrors).toEqual([]);
});

async function open(path: string, head: string, body?: string, referer?: string): Promise<void> {
  const url = srv.page(path.split('?')[0] as string, html(head, body));
  await page.goto(url + (path.includes('?') ? path.slice(path.indexOf('?')) : ''), referer ? { referer } : {});
  env = await page.evaluate(() => {
    const h = navigator.userAgentData;
    return {
      ua: navigator.userAgent,
      brands: h.brands.map((b: Any) => b.brand + ';' + b.version).join(','),
      mobile: h.mobile,
      os_name: h.platform,
      screen_width: window.screen.width,
      screen_height: window.screen.height,
    };
  });
}

/** The exact body of an automatic pageview on the 800×600 test viewport. */
function pageview(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: 'pageview',
    hostname: 'localhost',
    path: '/',
    id: expect.stringMatching(HEX),
    page_id: expect.stringMatching(HEX),
    unique: true,
    language: LANG,
    viewport_width: 800,
    viewport_height: 600,
    screen_width: env.screen_width,
    screen_height: env.screen_height,
    https: false,
    brands: env.brands,
    mobile: env.mobile,
    os_name: env.os_name,
    ua: env.ua,
    timezone: TZ,
    ...fields,
  };
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k];
  return out;
}

function append(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'append',
    hostname: 'localhost',
    path: '/',
    id: expect.stringMatching(HEX),
    original_id: expect.stringMatching(HEX),
    duration: expect.any(Number),
    scrolled: expect.any(Number),
    ua: env.ua,
    timezone: TZ,
    ...fields,
  };
}

/** The exact query of an event image, in wire order. */
function eventParams(event: string, extra: [string, string][] = [], path = '/'): [string, string][] {
  return [
    ['type', 'event'],
    ['event', event],
    ['hostname', 'localhost'],
    ['path', path],
    ['id', expect.stringMatching(HEX) as unknown as string],
    ['ua', env.ua],
    ['timezone', TZ],
    ...extra,
  ];
}

const gifs = (b: Beacon[]) => b.filter((x) => x.route === '/simple.gif');
const posts = (b: Beacon[], route: string) => b.filter((x) => x.route === route).map((x) => x.body as Record<string, unknown>);

const hide = () => hidePage(page);
const scrollTo = (y: number) => scrollPage(page, y);

describe('pageviews', () => {
  it('sends the first pageview to the script origin as one JSON object with the exact fields', async () => {
    await open('/first', srv.scriptTag(), undefined, 'http://news.example.com/story?id=1');
    const beacons = await srv.settle(1);
    expect(beacons).toHaveLength(1);
    const [b] = beacons as [Beacon];
    expect([b.route, b.method, b.host, b.params, b.cookie]).toEqual(['/events', 'POST', `127.0.0.1:${srv.port}`, [], undefined]);
    expect(b.contentType).toMatch(/^text\/plain/);
    const referrer = await page.evaluate(() => document.referrer);
    expect(referrer).toMatch(/^http:\/\/news\.example\.com\//);
    expect(b.body).toStrictEqual(pageview({ path: '/first', referrer }));
    const body = b.body as Record<string, string>;
    expect(body.page_id).toBe(body.id);
    expect(env.brands).toMatch(/^[^;,]+;[^;,]+(,[^;,]+;[^;,]+)*$/);
    expect(Object.keys(body)).toEqual(['type', 'hostname', 'path', 'referrer', 'id', 'page_id', 'unique', 'language', 'viewport_width', 'viewport_height', 'screen_width', 'screen_height', 'https', 'brands', 'mobile', 'os_name', 'ua', 'timezone']);
    expect(await page.evaluate(() => window.__randomUUIDCalls)).toBe(0);
  });

  it('reads only UTM and plain campaign parameters from the query string', async () => {
    const q =
      '?email=ann%40mail.example&token=s3cret&q=private+search&utm_source=news&utm_medium=mail&utm_campaign=spring&utm_term=shoes&utm_content=top' +
      '&source=src&ref=hn&medium=med&campaign=camp&term=t&content=c&utm_other=x&query=nope';
    await open('/landing' + q, srv.scriptTag());
    const [b] = (await srv.settle(1)) as [Beacon];
    expect(b.body).toStrictEqual(
      pageview({
        path: '/landing',
        utm_source: 'news',
        utm_medium: 'mail',
        utm_campaign: 'spring',
        utm_term: 'shoes',
        utm_content: 'top',
        source: 'src',
        ref: 'hn',
        medium: 'med',
        campaign: 'camp',
        term: 't',
        content: 'c',
      }),
    );
    await page.evaluate(() => window.tt_event('after'));
    await hide();
    const all = await srv.settle(3);
    expect(all).toHaveLength(3);
    const wire = JSON.stringify(all.map((x) => [x.params, x.body]));
    for (const secret of ['s3cret', 'ann', 'private', 'utm_other', 'nope', 'email', '"query"', '?']) expect(wire, secret).not.toContain(secret);
    expect(gifs(all)[0]?.query.path).toBe('/landing');
    expect(posts(all, '/append')[0]?.path).toBe('/landing');
  });

  it('marks a visit from the same host as not unique and omits its referrer', async () => {
    srv.page('/b', html(srv.scriptTag()));
    await open('/a', srv.scriptTag(), '<a id="go" href="/b">b</a>');
    const [first] = await srv.settle(1);
    await page.click('#go');
    await page.waitForURL('**/b');
    const all = await srv.settle(3);
    expect(all).toHaveLength(3);
    expect(first?.body).toStrictEqual(pageview({ path: '/a' }));
    const views = posts(all, '/events');
    expect(views[1]).toStrictEqual(pageview({ path: '/b', unique: false }));
    expect(posts(all, '/append')).toStrictEqual([append({ path: '/a', original_id: (first?.body as Record<string, string>).id })]);
  });

  it('takes data-hostname over location.hostname on every beacon', async () => {
    await open('/', srv.scriptTag({ hostname: 'www.example.com' }));
    await srv.settle(1);
    await page.evaluate(() => window.tt_event('x'));
    await hide();
    const all = await srv.settle(3);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({ hostname: 'www.example.com' }));
    expect(gifs(all)[0]?.query.hostname).toBe('www.example.com');
    expect(posts(all, '/append')[0]?.hostname).toBe('www.example.com');
  });

  it('sends one pageview when the script is included twice (load guard)', async () => {
    await open('/', `<script>function tt_event(){tt_event.q.push(arguments)}tt_event.q=[];tt_event('once')</script>${srv.scriptTag()}${srv.scriptTag()}`);
    const all = await srv.settle(2, 600);
    expect(all.map((b) => b.route).sort()).toEqual(['/events', '/simple.gif']);
    expect(await page.evaluate(() => window.tt_tt_loaded)).toBeTruthy();
    expect(await page.evaluate(() => document.querySelectorAll('script[src$="/latest.js"]').length)).toBe(2);
  });

  it('sends collect-dnt on pageviews, events and appends when data-collect-dnt="true"', async () => {
    await open('/', srv.scriptTag({ 'collect-dnt': 'true' }));
    await srv.settle(1);
    await page.evaluate(() => window.tt_event('x'));
    await hide();
    const all = await srv.settle(3);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({ 'collect-dnt': true }));
    expect(gifs(all)[0]?.params).toEqual(eventParams('x', [['collect-dnt', 'true']]));
    expect(posts(all, '/append')[0]).toStrictEqual(append({ 'collect-dnt': true }));
  });

  it('makes ids without crypto.getRandomValues and never with crypto.randomUUID', async () => {
    await ctx.addInitScript(() => {
      Object.defineProperty(window.Crypto.prototype, 'getRandomValues', { value: undefined, configurable: true });
    });
    await open('/', srv.scriptTag());
    await page.evaluate(() => window.tt_event('x'));
    const all = await srv.settle(2);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({}));
    expect(gifs(all)[0]?.query.id).toMatch(HEX);
    expect(await page.evaluate(() => window.__randomUUIDCalls)).toBe(0);
  });

  it('falls back to the image with the same fields when sendBeacon returns false', async () => {
    await ctx.addInitScript(() => {
      navigator.sendBeacon = () => false;
    });
    await open('/', srv.scriptTag());
    const [pv] = (await srv.settle(1)) as [Beacon];
    expect([pv.route, pv.method]).toEqual(['/simple.gif', 'GET']);
    const stringify = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v : String(v)]));
    expect(pv.query).toStrictEqual({ ...stringify(pageview({})), id: expect.stringMatching(HEX), page_id: pv.query.id });
    expect(pv.params.map(([k]) => k)).toEqual(['type', 'hostname', 'path', 'id', 'page_id', 'unique', 'language', 'viewport_width', 'viewport_height', 'screen_width', 'screen_height', 'https', 'brands', 'mobile', 'os_name', 'ua', 'timezone']);
    await hide();
    const all = await srv.settle(2);
    expect([all[1]?.route, all[1]?.method]).toEqual(['/simple.gif', 'GET']);
    expect(all[1]?.params).toEqual([
      ['type', 'append'],
      ['hostname', 'localhost'],
      ['path', '/'],
      ['id', expect.stringMatching(HEX)],
      ['original_id', pv.query.id],
      ['duration', expect.stringMatching(/^\d+$/)],
      ['scrolled', '100'],
      ['ua', env.ua],
      ['timezone', TZ],
    ]);
  });

  it('falls back to the image when sendBeacon is missing', async () => {
    await ctx.addInitScript(() => {
      delete window.Navigator.prototype.sendBeacon;
    });
    await open('/', srv.scriptTag());
    await hide();
    const all = await srv.settle(2);
    expect(all.map((b) => [b.route, b.method, b.query.type])).toEqual([
      ['/simple.gif', 'GET', 'pageview'],
      ['/simple.gif', 'GET', 'append'],
    ]);
    expect(all[1]?.query.original_id).toBe(all[0]?.query.id);
  });
});

describe('single-page navigation', () => {
  it('sends one pageview (unique=false) after the append of the previous page for a new path only', async () => {
    await open('/spa', srv.scriptTag());
    const [first] = await srv.settle(1);
    const firstId = (first?.body as Record<string, string>).id;

    await page.evaluate(() => {
      history.replaceState({}, '', '/spa');
      history.replaceState({ s: 1 }, '', '/spa?tab=2');
      history.pushState({}, '', '/spa#section');
      location.hash = '#other';
    });
    // Nothing for those: the next pushState's beacons are exactly the append and one pageview (checked below).

    await page.evaluate(() => history.pushState({}, '', '/next?utm_campaign=spring&secret=1'));
    let all = await srv.settle(3);
    expect(all).toHaveLength(3);
    expect(issued.slice(1).map((r) => [r.method, r.route])).toEqual([
      ['POST', '/append'],
      ['POST', '/events'],
    ]);
    expect(posts(all, '/append')).toStrictEqual([append({ path: '/spa', original_id: firstId, scrolled: 100 })]);
    const second = posts(all, '/events')[1] as Record<string, string>;
    expect(second).toStrictEqual(pageview({ path: '/next', unique: false, utm_campaign: 'spring' }));
    expect(second.id).not.toBe(firstId);

    await page.evaluate(() => history.back());
    all = await srv.settle(5);
    expect(all).toHaveLength(5);
    expect(posts(all, '/append')[1]).toStrictEqual(append({ path: '/next', original_id: second.id }));
    expect(posts(all, '/events')[2]).toStrictEqual(pageview({ path: '/spa', unique: false }));
  });

  it('sends a replaceState to a new path as a pageview', async () => {
    await open('/one', srv.scriptTag());
    await srv.settle(1);
    await page.evaluate(() => history.replaceState({}, '', '/two'));
    const all = await srv.settle(3);
    expect(all).toHaveLength(3);
    expect(posts(all, '/events')[1]).toStrictEqual(pageview({ path: '/two', unique: false }));
  });
});

describe('engagement appends', () => {
  it('sends duration and max scroll once when the page is hidden, linked to the pageview id', async () => {
    await page.clock.install({ time: new Date('2026-03-01T10:00:00Z') });
    await open('/long', srv.scriptTag(), '<div style="height:2400px">long</div>');
    const [pv] = await srv.settle(1);
    await page.clock.fastForward(12_000);
    await scrollTo(600); // (600 + 600) / 2400 = 50 %
    await scrollTo(0);
    await hide();
    const all = await srv.settle(2);
    expect(all).toHaveLength(2);
    expect([all[1]?.route, all[1]?.method, all[1]?.host]).toEqual(['/append', 'POST', `127.0.0.1:${srv.port}`]);
    expect(all[1]?.contentType).toMatch(/^text\/plain/);
    const body = all[1]?.body as Record<string, unknown>;
    // The installed clock also runs on by itself: a slow machine adds a second between load and hide.
    expect(body.duration).toBeGreaterThanOrEqual(12);
    expect(body.duration).toBeLessThanOrEqual(13);
    expect(body).toStrictEqual(append({ path: '/long', original_id: (pv?.body as Record<string, string>).id, duration: body.duration as number, scrolled: 50 }));
    expect(body.id).not.toBe(body.original_id);
    expect(Object.keys(body)).toEqual(['type', 'hostname', 'path', 'id', 'original_id', 'duration', 'scrolled', 'ua', 'timezone']);

    // Once per page: another hide or the pagehide sends nothing more.
    await page.evaluate(() => {
      document.dispatchEvent(new Event('visibilitychange'));
      window.dispatchEvent(new Event('pagehide'));
    });
    expect(await beforeMarker()).toHaveLength(2);
  });

  it('counts only visible time (a page opened in a background tab)', async () => {
    await page.clock.install({ time: new Date('2026-03-01T10:00:00Z') });
    await ctx.addInitScript(() => Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true }));
    await open('/', srv.scriptTag());
    await srv.settle(1);
    await page.clock.fastForward(100_000);
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.clock.fastForward(3_000);
    await hide();
    const all = await srv.settle(2);
    expect(posts(all, '/append')[0]?.duration).toBe(3);
  });

  it('sends the append when the visitor navigates away', async () => {
    srv.page('/elsewhere', html(''));
    await open('/leave', srv.scriptTag(), '<div style="height:1200px">x</div>');
    const [pv] = await srv.settle(1);
    await page.goto(srv.pageOrigin + '/elsewhere');
    const all = await srv.settle(2);
    expect(all).toHaveLength(2);
    expect(posts(all, '/append')).toStrictEqual([append({ path: '/leave', original_id: (pv?.body as Record<string, string>).id, scrolled: 50 })]);
  });
});

describe('events', () => {
  it('replays a queue defined before load in order, then takes over tt_event', async () => {
    await open(
      '/',
      `<script>function tt_event(){tt_event.q.push(arguments)}tt_event.q=[];
        tt_event('first');tt_event('second',{n:2});tt_event('third',function(){window.cbs=(window.cbs||0)+1});</script>${srv.scriptTag()}`,
    );
    const all = await srv.settle(4);
    expect(all).toHaveLength(4);
    expect(issued.filter((r) => r.route === '/simple.gif').map((r) => r.query.event)).toEqual(['first', 'second', 'third']);
    const byName = Object.fromEntries(gifs(all).map((b) => [b.query.event, b.params]));
    expect(byName).toEqual({
      first: eventParams('first'),
      second: eventParams('second', [['metadata', '{"n":2}']]),
      third: eventParams('third'),
    });
    expect(await page.evaluate(() => [window.cbs, window.tt_event.q, typeof window.tt_event])).toEqual([1, undefined, 'function']);
  });

  it('sends metadata and runs the callback once after the image request', async () => {
    await open('/shop', srv.scriptTag());
    await srv.settle(1);
    const result = await page.evaluate(
      () =>
        new Promise((resolve) => {
          let calls = 0;
          window.tt_event('Sign up!', { plan: 'pro', seats: 3, yearly: true, nested: { a: 1 }, list: [1], none: null, inf: Infinity }, () => {
            calls++;
            setTimeout(() => resolve({ calls, sync }), 300);
          });
          const sync = calls;
        }),
    );
    expect(result).toEqual({ calls: 1, sync: 0 });
    const all = srv.beacons;
    expect(gifs(all)).toHaveLength(1);
    expect(gifs(all)[0]?.params).toEqual(eventParams('Sign_up', [['metadata', '{"plan":"pro","seats":3,"yearly":true}']], '/shop'));
  });

  it('takes a function in the second position as the callback and also calls it when the image fails', async () => {
    srv.gifStatus = 400;
    await open('/', srv.scriptTag());
    await srv.settle(1);
    const calls = await page.evaluate(
      () =>
        new Promise((resolve) => {
          let n = 0;
          window.tt_event('fails', () => {
            n++;
            setTimeout(() => resolve(n), 300);
          });
        }),
    );
    expect(calls).toBe(1);
    expect(gifs(srv.beacons)[0]?.params).toEqual(eventParams('fails'));
  });

  it('normalizes names: cut to 256 first, runs of other characters to _, edges trimmed', async () => {
    await open('/', srv.scriptTag());
    await srv.settle(1);
    await page.evaluate(() => {
      window.tt_event('  Hello, World!  ');
      window.tt_event('sign-up__button');
      window.tt_event('x'.repeat(255) + '!!y');
      window.tt_event('äé€ok');
      window.tt_event(12.5);
      window.tt_event(() => 'fn name');
    });
    const all = await srv.settle(7);
    expect(all).toHaveLength(7);
    expect(issued.filter((r) => r.route === '/simple.gif').map((r) => r.query.event)).toEqual(['Hello_World', 'sign_up_button', 'x'.repeat(255), 'ok', '12_5', 'fn_name']);
  });

  it('sends nothing and never calls the callback for names that clean to empty', async () => {
    await open('/', srv.scriptTag());
    await srv.settle(1);
    const calls = await page.evaluate(async () => {
      let n = 0;
      const cb = () => n++;
      for (const name of ['', '!!!', '___', '   ', '-'.repeat(300) + 'late', () => ' ! ']) window.tt_event(name, cb);
      window.tt_event('?', { a: 1 }, cb);
      await new Promise((r) => setTimeout(r, 500));
      return n;
    });
    expect(calls).toBe(0);
    expect(await beforeMarker()).toHaveLength(1);
  });

  it('sends a name function returning a number and calls back after the request', async () => {
    await open('/', srv.scriptTag());
    await srv.settle(1);
    const calls = await page.evaluate(
      () =>
        new Promise((resolve) => {
          let n = 0;
          window.tt_event(() => 42, { k: 'v' }, () => {
            n++;
            setTimeout(() => resolve(n), 300);
          });
          if (n) resolve(-1);
        }),
    );
    expect(calls).toBe(1);
    expect(gifs(srv.beacons).map((b) => b.params)).toEqual([eventParams('42', [['metadata', '{"k":"v"}']])]);
  });

  it('calls back at once without a request for names of a wrong type and failing name functions', async () => {
    await open('/', srv.scriptTag());
    await srv.settle(1);
    const calls = await page.evaluate(async () => {
      let n = 0;
      const cb = () => n++;
      const names = [{}, undefined, null, true, [1], Symbol('s'), () => ({}), () => null, () => undefined, () => { throw new Error('boom'); }];
      const sync: number[] = [];
      for (const name of names) {
        window.tt_event(name, cb);
        sync.push(n);
      }
      window.tt_event({}, { a: 1 }, cb);
      sync.push(n);
      await new Promise((r) => setTimeout(r, 400));
      return { sync, total: n };
    });
    expect(calls).toEqual({ sync: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], total: 11 });
    expect(await beforeMarker()).toHaveLength(1);
  });

  it('leaves a foreign tt_event without q and other vendors alone, pageviews continue', async () => {
    await open(
      '/',
      `<script>
        window.foreign=[];window.tt_event=function(){foreign.push([].slice.call(arguments))};window.tt_event.mine=1;
        window.sa_event=function(){sa_event.q.push(arguments)};sa_event.q=[];sa_event('vendor');
        window.plausible=function(){(plausible.q=plausible.q||[]).push(arguments)};plausible('pv');
      </script>${srv.scriptTag()}`,
    );
    const first = await srv.settle(1);
    expect(first.map((b) => b.route)).toEqual(['/events']);
    const state = await page.evaluate(() => {
      window.tt_event('mine', { a: 1 });
      return [window.tt_event.mine, window.foreign, window.sa_event.q.length, window.plausible.q.length];
    });
    expect(state).toEqual([1, [['mine', { a: 1 }]], 1, 1]);
    await page.evaluate(() => history.pushState({}, '', '/later'));
    const all = await srv.settle(3);
    expect(gifs(all)).toEqual([]);
    expect(posts(all, '/events')[1]).toStrictEqual(pageview({ path: '/later', unique: false }));
  });
});

describe('metadata', () => {
  it('adds tt_metadata to every pageview and event, replacing event keys of the same name; sends long metadata whole (the server cuts it)', async () => {
    await open('/', `<script>window.tt_metadata={plan:'global',author:'ann',skip:{x:1},list:[1]}</script>${srv.scriptTag()}`);
    await srv.settle(1);
    await page.evaluate(() => {
      window.tt_event('buy', { plan: 'event', price: 5, ok: false, nested: { a: 1 }, nan: NaN, nul: null });
      window.tt_event('plain');
    });
    let all = await srv.settle(3);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({ metadata: { plan: 'global', author: 'ann' } }));
    const events = Object.fromEntries(gifs(all).map((b) => [b.query.event, b.params]));
    expect(events).toEqual({
      buy: eventParams('buy', [['metadata', '{"plan":"global","price":5,"ok":false,"author":"ann"}']]),
      plain: eventParams('plain', [['metadata', '{"plan":"global","author":"ann"}']]),
    });

    await page.evaluate(() => window.tt_event('big', { long: 'y'.repeat(5000) }));
    all = await srv.settle(4);
    const big = gifs(all).find((b) => b.query.event === 'big');
    expect(JSON.parse(big?.query.metadata ?? '{}')).toEqual({ long: 'y'.repeat(5000), plan: 'global', author: 'ann' });
  });

  it('omits metadata when nothing is left', async () => {
    await open('/', `<script>window.tt_metadata={skip:{x:1}}</script>${srv.scriptTag()}`);
    await page.evaluate(() => window.tt_event('e', { f: () => 1 }));
    const all = await srv.settle(2);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({}));
    expect(gifs(all)[0]?.params).toEqual(eventParams('e'));
  });

  it('lets data-metadata-collector see the merged metadata with type and event and override keys', async () => {
    await open(
      '/',
      `<script>window.tt_metadata={plan:'global',keep:1};window.seen=[];
        window.collect=function(d){seen.push(JSON.parse(JSON.stringify(d)));return {plan:'collector',from:d.type,bad:[1]}}</script>${srv.scriptTag({ 'metadata-collector': 'collect' })}`,
    );
    await srv.settle(1);
    await page.evaluate(() => window.tt_event('buy', { price: 5, plan: 'event' }));
    const all = await srv.settle(2);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({ metadata: { plan: 'collector', keep: 1, from: 'pageview' } }));
    expect(gifs(all)[0]?.params).toEqual(eventParams('buy', [['metadata', '{"price":5,"plan":"collector","keep":1,"from":"event"}']]));
    expect(await page.evaluate(() => window.seen)).toEqual([
      { plan: 'global', keep: 1, type: 'pageview' },
      { price: 5, plan: 'global', keep: 1, type: 'event', event: 'buy' },
    ]);
  });

  it('ignores a metadata collector that throws or returns something else', async () => {
    await open(
      '/',
      `<script>window.tt_metadata={plan:'global'};window.n=0;window.boom=function(){if(n++)return 'text';throw new Error('collector failed')}</script>${srv.scriptTag({ 'metadata-collector': 'boom' })}`,
    );
    await page.evaluate(() => window.tt_event('e'));
    const all = await srv.settle(2);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({ metadata: { plan: 'global' } }));
    expect(gifs(all)[0]?.params).toEqual(eventParams('e', [['metadata', '{"plan":"global"}']]));
  });
});

describe('namespaces and globals', () => {
  it('prefixes every global with data-namespace', async () => {
    await open(
      '/',
      `<script>window.tt_metadata={ns:'tt'};window.tt_tt_loaded=1;window.foo_metadata={ns:'foo'};
        function foo_event(){foo_event.q.push(arguments)}foo_event.q=[];foo_event('queued')</script>${srv.scriptTag({ namespace: 'foo' })}`,
    );
    await page.evaluate(() => window.foo_event('later'));
    const all = await srv.settle(3);
    expect(all).toHaveLength(3);
    expect(posts(all, '/events')[0]).toStrictEqual(pageview({ metadata: { ns: 'foo' } }));
    expect(issued.filter((r) => r.route === '/simple.gif').map((r) => r.query.event)).toEqual(['queued', 'later']);
    expect(gifs(all).map((b) => b.query.metadata)).toEqual(['{"ns":"foo"}', '{"ns":"foo"}']);
    expect(
      await page.evaluate(() => [window.foo_tt_loaded, typeof window.foo_pageview, typeof window.tt_event, typeof window.tt_pageview, window.foo_event.q]),
    ).toEqual([1, 'function', 'undefined', 'undefined', undefined]);
  });

  it('honours <ns>_settings for manual mode in a custom namespace', async () => {
    await open('/', `<script>window.foo_settings={autoCollect:false}</script>${srv.scriptTag({ namespace: 'foo' })}`);
    expect(await beforeMarker('foo')).toEqual([]);
    await page.evaluate(() => window.foo_pageview('/m'));
    const all = await srv.settle(2);
    expect(all.filter((b) => !isMarker(b)).map((b) => b.body)).toStrictEqual([pageview({ path: '/m' })]);
  });

  for (const attribute of ['event-global', 'sa-global']) {
    it(`renames the event function with data-${attribute}; only the renamed one exists`, async () => {
      await open(
        '/',
        `<script>function track(){track.q.push(arguments)}track.q=[];track('queued')</script>${srv.scriptTag({ [attribute]: 'track' })}`,
      );
      await page.evaluate(() => window.track('direct', { a: 1 }));
      const all = await srv.settle(3);
      expect(all).toHaveLength(3);
      expect(issued.filter((r) => r.route === '/simple.gif').map((r) => r.query.event)).toEqual(['queued', 'direct']);
      expect(gifs(all).find((b) => b.query.event === 'direct')?.params).toEqual(eventParams('direct', [['metadata', '{"a":1}']]));
      expect(await page.evaluate(() => [typeof window.track, typeof window.tt_event, typeof window.sa_event])).toEqual(['function', 'undefined', 'undefined']);
    });
  }
});

describe('manual mode', () => {
  it('sends no automatic pageviews with tt_settings.autoCollect=false; tt_pageview sends one', async () => {
    await open('/page', `<script>window.tt_settings={autoCollect:false}</script>${srv.scriptTag()}`);
    expect(await beforeMarker()).toEqual([]);
    await page.evaluate(() => window.tt_pageview('/x'));
    const [first] = (await srv.settle(2)).filter((b) => !isMarker(b)) as [Beacon];
    expect(first.body).toStrictEqual(pageview({ path: '/x' }));

    await page.evaluate(() => history.pushState({}, '', '/y'));
    // Before the new marker: the first marker and /x, nothing for the pushState.
    expect((await beforeMarker()).filter((b) => !isMarker(b))).toHaveLength(1);

    await page.evaluate(() => window.tt_pageview());
    const all = (await srv.settle(5)).filter((b) => !isMarker(b));
    expect(all).toHaveLength(3);
    expect(posts(all, '/append')).toStrictEqual([append({ path: '/x', original_id: (first.body as Record<string, string>).id })]);
    expect(posts(all, '/events')[1]).toStrictEqual(pageview({ path: '/y', unique: false }));
  });

  it('honours data-auto-collect="false"', async () => {
    await open('/page', srv.scriptTag({ 'auto-collect': 'false' }));
    expect(await beforeMarker()).toEqual([]);
    await page.evaluate(() => window.tt_pageview());
    const all = await srv.settle(2);
    expect(all.filter((b) => !isMarker(b)).map((b) => b.body)).toStrictEqual([pageview({ path: '/page' })]);
  });
});

describe('privacy', () => {
  it('sends nothing while the visitor has opted out (localStorage tinytrack_ignore = "true"), calls event callbacks, and sends again once they opt back in', async () => {
    await page.addInitScript(() => localStorage.setItem('tinytrack_ignore', 'true'));
    await open('/', srv.scriptTag(), '<div style="height:2000px">x</div>');
    const called = await page.evaluate(
      () =>
        new Promise((done) => {
          history.pushState({}, '', '/two');
          window.tt_event('opted_out', {}, () => done(true));
        }),
    );
    expect(called).toBe(true);
    await page.evaluate(() => {
      localStorage.removeItem('tinytrack_ignore');
      window.tt_event('back');
    });
    const all = await srv.waitFor((b) => b.length > 0);
    await page.waitForTimeout(300);
    expect(srv.beacons.map((b) => (b.body as Record<string, unknown> | undefined)?.event ?? b.query.event)).toEqual(['back']);
    expect(all.length).toBe(1);
  });

  it('writes no cookies, localStorage or sessionStorage', async () => {
    await open('/', srv.scriptTag(), '<div style="height:2000px">x</div>');
    await page.evaluate(() => {
      window.tt_event('x', { a: 1 });
      history.pushState({}, '', '/two');
    });
    await hide();
    const all = await srv.settle(5);
    expect(all).toHaveLength(5);
    expect(all.every((b) => b.cookie === undefined)).toBe(true);
    expect(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length])).toEqual(['', 0, 0]);
    expect(await ctx.cookies()).toEqual([]);
  });

  it('adds no link, download or form tracking', async () => {
    srv.page('/file.pdf', 'pdf');
    await open(
      '/',
      srv.scriptTag(),
      `<a id="out" href="http://127.0.0.1:${srv.port}/file.pdf" target="_blank">out</a><form id="f" onsubmit="return false"><button id="b">go</button></form>`,
    );
    await srv.settle(1);
    await page.click('#b');
    await page.click('#out');
    expect((await beforeMarker()).map((b) => b.route)).toEqual(['/events']);
  });
});

describe('outbound links', () => {
  const links = '<a id="out" href="https://elsewhere.example/pricing">out</a> <a id="own" href="/next">own</a> <a id="mail" href="mailto:a@example.com">mail</a>';
  const outbound = (b: Beacon[]) => posts(b, '/events').filter((o) => o.event === 'outbound');

  it('with data-outbound="true", sends an outbound event by sendBeacon for a left click on a link to another host; a same-host or mailto link sends nothing', async () => {
    await page.route('https://elsewhere.example/**', (route) => route.fulfill({ body: 'elsewhere', contentType: 'text/html' }));
    await open('/links', srv.scriptTag({ outbound: 'true' }), links);
    await srv.settle(1);
    await page.evaluate(() => document.getElementById('mail').addEventListener('click', (e: Any) => e.preventDefault()));
    await page.click('#mail');
    await page.click('#own');
    await page.waitForURL(/\/next$/);
    await page.goBack();
    await srv.settle(3);
    await page.click('#out');
    await page.waitForURL('https://elsewhere.example/pricing');
    const all = await srv.settle(4);
    expect(outbound(all)).toStrictEqual([
      { type: 'event', event: 'outbound', hostname: 'localhost', path: '/links', id: expect.stringMatching(HEX), metadata: { host: 'elsewhere.example' }, ua: env.ua, timezone: TZ },
    ]);
  });

  it('sends one for a middle click (a new tab), none for a right click, and none without data-outbound', async () => {
    await open('/links', srv.scriptTag({ outbound: 'true' }), links);
    await srv.settle(1);
    await page.evaluate(() => document.getElementById('out').addEventListener('auxclick', (e: Any) => e.preventDefault()));
    await page.click('#out', { button: 'middle' });
    await page.click('#out', { button: 'right' });
    expect(outbound(await beforeMarker())).toHaveLength(1);

    await open('/plain', srv.scriptTag(), links);
    await page.evaluate(() => document.getElementById('out').addEventListener('click', (e: Any) => e.preventDefault()));
    await page.click('#out');
    expect(outbound(await beforeMarker()).filter((o) => o.path === '/plain')).toEqual([]);
  });
});
