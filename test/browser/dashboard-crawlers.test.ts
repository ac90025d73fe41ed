/**
 * The dashboard's Crawlers tab in a real Chromium against the real service and
 * the fake Cloudflare API: find the token's zones, link one, Sync now, read AI
 * and search hits per day, the top crawlers and the most crawled pages, see a
 * failed sync's error, and unlink. WCAG 2 AA errors none; screenshots at 1280
 * and 360 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';
import { startFakeCloudflare, type FakeCloudflare } from '../support/fake-cloudflare.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const TOKEN = 'cf-dashboard-token-3e9a1b';
const ZONE = { id: '023e105f4ecef8ad9ca31a8372d0c353', name: 'crawled.example' };
const H = 3_600_000;

let cf: FakeCloudflare;
let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  cf = await startFakeCloudflare();
  cf.addToken(TOKEN, [ZONE, { id: '9a7806061c88ada191ed06f989cc3dac', name: 'another.example' }]);
  const now = Date.now();
  cf.setGroups(ZONE.id, [
    { at: now - 3 * H, userAgent: 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)', path: '/', count: 9 },
    { at: now - 2 * H, userAgent: 'Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)', path: '/docs', count: 4 },
    { at: now - 2 * H, userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', path: '/docs', count: 6 },
  ]);
  svc = await startTestService({ CLOUDFLARE_API_URL: cf.url });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await cf?.stop();
});

describe('dashboard crawlers', () => {
  it('links a zone, syncs, shows hits, crawlers and pages, keeps the period in the URL, shows a failed sync, and unlinks', async () => {
    const token = await svc.token('crawler-dash-owner');
    const site = await svc.site(token, { prefix: 'dash-crawlers' });
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/crawlers`);
    await page.getByLabel('Cloudflare API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Find zones' }).click();
    await page.getByLabel('Zone').selectOption(ZONE.id);
    await page.getByRole('button', { name: 'Link zone' }).click();
    await page.getByText(`Linked to Cloudflare zone ${ZONE.name}`).waitFor();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('crawler-rows').getByText('GPTBot').waitFor();
    await settled(page);
    const rows = await page.getByTestId('crawler-rows').locator('tbody tr').allInnerTexts();
    expect(rows.map((r) => r.split('\t'))).toEqual([
      ['GPTBot', 'AI', '9'],
      ['Googlebot', 'Search', '6'],
      ['ClaudeBot', 'AI', '4'],
    ]);
    const pages = await page.getByTestId('crawler-pages').locator('tbody tr').allInnerTexts();
    expect(pages.map((r) => r.split('\t')[0])).toEqual(['/docs', '/']);
    expect(await page.getByTestId('crawler-chart').count()).toBe(1);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'crawlers');

    // The period is in the URL: a reload shows the same one.
    await page.getByLabel('Period').selectOption('7');
    expect(new URL(page.url()).searchParams.get('days')).toBe('7');
    await page.reload();
    await page.getByTestId('crawler-rows').getByText('GPTBot').waitFor();
    expect(await page.getByLabel('Period').inputValue()).toBe('7');

    cf.addToken(TOKEN, []);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('crawler-sync-error').waitFor();
    expect(await page.getByTestId('crawler-sync-error').innerText()).toContain('does not have access to the path');

    await page.getByRole('button', { name: 'Unlink' }).click();
    await page.getByLabel('Cloudflare API token').waitFor();
    expect(await page.getByTestId('crawler-link').count()).toBe(0);
  });
});
