/**
 * The tracker against the real service: a page on its own origin loads
 * latest.js from the local server, and its pageview, event and append are
 * stored in DuckDB, with the derived fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { FRESH_TABLE } from '#adapters/duckdb/duckdb-event-store.ts';

let svc: TestService;
let browser: Browser;
let pages: Server;
let pageOrigin: string;
let site: string;

beforeAll(async () => {
  svc = await startTestService();
  site = await svc.site(await svc.token('e2e-owner'), { prefix: 'e2e' });
  // The page's own origin is localhost; the script and beacons go to the service at 127.0.0.1.
  pages = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><html><head><script async data-hostname="${site}" src="${svc.url}/latest.js"></script></head><body style="height:3000px"><h1>${req.url}</h1></body></html>`);
  });
  await new Promise<void>((ok) => pages.listen(0, '127.0.0.1', () => ok()));
  pageOrigin = `http://localhost:${(pages.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  pages?.close();
  await svc.stop();
});

async function stored(minimum: number): Promise<Record<string, unknown>[]> {
  for (let i = 0; i < 100; i++) {
    await svc.node.runtime.eventQueue.drain();
    const rows = await svc.node.runtime.events.query<Record<string, unknown>>(`SELECT * FROM ${FRESH_TABLE} WHERE site = $site ORDER BY ts, rowid`, { site });
    if (rows.length >= minimum) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`fewer than ${minimum} rows stored`);
}

describe('latest.js served by the local service', () => {
  it('stores the pageview, a custom event and the append on hide', async () => {
    // Headless Chromium says "HeadlessChrome" and would rightly be stored as a bot.
    const userAgent = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'ja-JP', userAgent });
    const page = await context.newPage();
    await page.goto(`${pageOrigin}/pricing?utm_source=newsletter&secret=1`);
    await page.waitForFunction(() => typeof (globalThis as unknown as { tt_event?: unknown }).tt_event === 'function');
    await page.evaluate(() => new Promise<void>((done) => (globalThis as unknown as { tt_event: (n: string, m: object, cb: () => void) => void }).tt_event('Sign up', { plan: 'pro' }, done)));
    await page.close({ runBeforeUnload: true });
    await context.close();
    const rows = await stored(3);
    const pageview = rows.find((r) => r.kind === 'pageview')!;
    expect(pageview).toMatchObject({ path: '/pricing', utm_source: 'newsletter', source: 'newsletter', country: 'JP', language: 'ja-JP', bot: false, unique: true });
    expect(String(pageview.query ?? '')).not.toContain('secret');
    expect(rows.find((r) => r.kind === 'event')).toMatchObject({ event: 'Sign_up', metadata: '{"plan":"pro"}', path: '/pricing' });
    const append = rows.find((r) => r.kind === 'append')!;
    expect(append.original_id).toBe(pageview.id);
    expect(pageview.visitor).toMatch(/^[0-9a-f]{32}$/);
  }, 60_000);
});
