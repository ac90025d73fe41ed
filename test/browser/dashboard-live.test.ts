/**
 * The live panel (issue 39) in a real Chromium against the real service:
 * beacons sent while the site view is open show as visitors, pages and
 * sources; a stream that reaches its time limit is followed by a new one on
 * a new ticket; the limit of open streams is shown; leaving the view closes
 * the stream, and so does a hidden tab. No WCAG 2 AA error; screenshots at 1280 and 360 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { openSse, type SseStream } from '../support/sse.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';
import { LIVE_CADENCE, MAX_LIVE_STREAMS } from '#domain/live/live-stream.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

let svc: TestService;
let browser: Browser;
let token: string;
let site: string;
let page: Page | null = null;

const ua = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.${n}.0 Safari/537.36`;
async function pageview(visitor: number, path: string, referrer?: string) {
  const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, path, ua: ua(visitor), timezone: 'Europe/Paris', ...(referrer ? { referrer } : {}) }), headers: { 'user-agent': ua(visitor) } });
  expect(r.text).toBe('ok');
}

/** Opens what is left of the account's streams from outside the page: how many the server let open. */
async function openRest(): Promise<SseStream[]> {
  const opened: SseStream[] = [];
  for (let i = 0; i < MAX_LIVE_STREAMS; i++) {
    const s = await openSse(`${svc.url}/api/live/${site}`, { authorization: `Bearer ${token}` });
    if (s.status !== 200) break;
    opened.push(s);
  }
  return opened;
}

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token('live-dash-owner');
  site = await svc.site(token, { prefix: 'dash-live' });
  browser = await launchChromium();
});
afterEach(async () => {
  svc.node.services.liveCadence = undefined;
  await page?.context().close();
  page = null;
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('dashboard live panel', () => {
  it('shows visitors, pages and sources of beacons sent while it is open', async () => {
    svc.node.services.liveCadence = { ...LIVE_CADENCE, updateMs: 500 };
    page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}`);
    const panel = page.getByRole('region', { name: 'Live' });
    await panel.getByTestId('live-status').getByText('Live').waitFor();
    await expect(panel.getByTestId('live-visitors').innerText()).resolves.toContain('0');
    await pageview(1, '/pricing', 'https://news.ycombinator.com/item?id=1');
    await pageview(2, '/pricing');
    await pageview(3, '/docs/start');
    await page.waitForFunction(() => document.querySelector('[data-testid="live-visitors"] .stat-value')?.textContent === '3', undefined, { timeout: 10_000 });
    await expect(panel.getByTestId('live-pages').innerText()).resolves.toMatch(/\/pricing\s+2[\s\S]*\/docs\/start\s+1/);
    await expect(panel.getByTestId('live-sources').innerText()).resolves.toMatch(/Hacker News\s+1/);
    // Three visitors, one pageview each: in the last minute, or the last two when a minute turned between them.
    const perMinute = (await panel.getByTestId('live-sparkline').getByRole('img').getAttribute('aria-label'))?.replace('Visitors per minute: ', '').split(', ').map(Number);
    expect([perMinute?.length, perMinute?.reduce((a, b) => a + b, 0)]).toEqual([15, 3]);
    await settled(page);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'live');
  }, 60_000);

  it('opens a new stream on a new ticket when one reaches its time limit', async () => {
    svc.node.services.liveCadence = { updateMs: 300, heartbeatMs: 300, maxMs: 1_200 };
    page = await ownerPage(browser, token);
    const tickets: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith(`/api/live/${site}/ticket`)) tickets.push(r.method());
    });
    await page.goto(`${svc.url}/sites/${site}`);
    await page.waitForFunction(() => document.querySelector('[data-testid="live-status"]')?.textContent === 'Live');
    await page.waitForTimeout(3_000);
    expect(tickets.length).toBeGreaterThanOrEqual(3);
    expect(new Set(tickets)).toEqual(new Set(['POST']));
    await page.waitForFunction(() => document.querySelector('[data-testid="live-status"]')?.textContent === 'Live');
  }, 30_000);

  it('closes its stream while the tab is hidden, freeing the slot, and connects again when shown', async () => {
    page = await ownerPage(browser, token);
    await page.goto(`${svc.url}/sites/${site}`);
    const status = () => page!.getByTestId('live-status').textContent();
    await expect.poll(status, { timeout: 15_000 }).toBe('Live');
    // The page's visibility as a background tab reports it; headless Chromium has no real tab switch.
    const setHidden = (hidden: boolean) =>
      page!.evaluate((h: boolean) => {
        Object.defineProperty(document, 'visibilityState', { value: h ? 'hidden' : 'visible', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);
    await setHidden(true);
    await expect.poll(status).toBe('Paused while the tab is hidden');
    const rest = await svc.until(openRest, (opened) => {
      for (const s of opened) s.close();
      return opened.length === MAX_LIVE_STREAMS;
    });
    expect(rest).toHaveLength(MAX_LIVE_STREAMS);
    await setHidden(false);
    await expect.poll(status, { timeout: 15_000 }).toBe('Live');
  }, 60_000);

  it('shows the limit of open streams, and frees its own stream when the view is left', async () => {
    const others = await openRest();
    expect(others).toHaveLength(MAX_LIVE_STREAMS);
    page = await ownerPage(browser, token);
    await page.goto(`${svc.url}/sites/${site}`);
    await page.getByText('live stream limit reached: at most 5 open streams per account; close one first').waitFor();
    for (const s of others) s.close();
    // The panel keeps trying and gets in once a slot is free.
    await page.waitForFunction(() => document.querySelector('[data-testid="live-status"]')?.textContent === 'Live', undefined, { timeout: 15_000 });
    await page.goto(`${svc.url}/sites/${site}/settings`);
    const rest = await svc.until(openRest, (opened) => {
      for (const s of opened) s.close();
      return opened.length === MAX_LIVE_STREAMS;
    });
    expect(rest).toHaveLength(MAX_LIVE_STREAMS);
  }, 60_000);
});
