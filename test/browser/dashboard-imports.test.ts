/**
 * The dashboard's imports view in a real Chromium against the real service
 * and a fake Simple Analytics export: start an import with the source's own
 * fields, watch its progress bar follow chunks_done of chunks_total, cancel
 * it mid-way, retry it, and see it finish with the numbers the API gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { generateDataset, isCredentialTest, startFakeSimpleAnalytics, type FakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const window: Any;

const SOURCE = 'old-blog.example.org';
const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

let sa: FakeSimpleAnalytics;
let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  sa = await startFakeSimpleAnalytics();
  svc = await startTestService({ SIMPLEANALYTICS_BASE_URL: sa.url, IMPORT_RETRY_BASE_MS: '10' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await sa?.close();
});

describe('dashboard imports', () => {
  it('starts an import, shows its progress, cancels it and retries it to the end', async () => {
    const token = await svc.token('import-owner');
    const site = await svc.site(token, { prefix: 'dash-import' });
    const start = utcDay(-360);
    const end = utcDay(-1);
    const data = generateDataset(start, end, 2_000, 400, 7);
    sa.setData(SOURCE, data);
    // Slow exports, so the job is caught running.
    let slow = true;
    sa.on(async (r) => {
      if (slow && !isCredentialTest(r)) await new Promise((ok) => setTimeout(ok, 1_000));
      return undefined;
    });
    const context = await browser.newContext({ locale: 'en-US' });
    await context.addInitScript((t: string) => window.sessionStorage.setItem('tt.token', JSON.stringify({ token: t, expiresAt: Date.now() + 3_600_000 })), token);
    const page = await context.newPage();
    await page.goto(`${svc.url}/sites/${site}/imports`);
    await page.getByText('No imports yet.').waitFor();
    await page.getByLabel('User ID', { exact: true }).fill('sa_user_id_dashboard');
    await page.getByLabel('API key', { exact: true }).fill('sa_api_key_dashboard_test_0001');
    await page.getByLabel('Website in Simple Analytics', { exact: true }).fill(SOURCE);
    await page.getByLabel('First day (UTC)').fill(start);
    await page.getByLabel('Last day (UTC)').fill(end);
    await page.getByRole('button', { name: 'Start import' }).click();

    const bar = page.getByRole('progressbar');
    await bar.waitFor();
    // The bar follows the job while it runs (the view reads it again every few seconds).
    await expect.poll(async () => Number(await bar.getAttribute('value')), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.badge', { hasText: 'cancelled' }).waitFor();
    const [cancelled] = (await svc.req('GET', `/api/sites/${site}/imports`, { token })).json.imports;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.chunks_done).toBeLessThan(cancelled.chunks_total);

    slow = false;
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.locator('.badge', { hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    const [done] = (await svc.req('GET', `/api/sites/${site}/imports`, { token })).json.imports;
    expect(done).toMatchObject({ status: 'succeeded', chunks_done: done.chunks_total, rows_imported: data.pageviews.length + data.events.length });
    expect([Number(await bar.getAttribute('value')), Number(await bar.getAttribute('max'))]).toEqual([done.chunks_total, done.chunks_total]);
    await expect(page.getByTestId(`import-${done.id}`).innerText()).resolves.toContain(`${done.chunks_total} of ${done.chunks_total} chunks`);
    sa.on(null);
    await context.close();
  }, 120_000);
});
