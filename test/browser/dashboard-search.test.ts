/**
 * The Search tab in a real Chromium against the real service and the fake
 * Google (test/support/fake-google.ts): link through Google's consent (the
 * fake sends the browser back to /account at once), pick a property, sync,
 * see the figures, a failed sync's error, and unlink.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';
import { startFakeGoogle, type FakeGoogle } from '../support/fake-google.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
/** A port free now: Google's redirect URI names the dashboard's origin before the service listens. */
const freePort = () =>
  new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });

let google: FakeGoogle;
let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  const port = await freePort();
  google = await startFakeGoogle(`http://127.0.0.1:${port}/account`);
  svc = await startTestService({ ...google.env, PORT: String(port) });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await google?.close();
});

describe('dashboard Search tab', () => {
  it('links Search Console through the consent, syncs, shows the figures, keeps the period in the URL, and unlinks', async () => {
    const token = await svc.token('search-owner');
    const site = await svc.site(token, { prefix: 'dash-search' });
    const property = `https://${site}/`;
    google.properties.push({ siteUrl: property, permissionLevel: 'siteOwner' });
    google.rows.set(
      property,
      Array.from({ length: 20 }, (_, i) => ({
        date: day(-1 - (i % 10)),
        query: `tinytrack query ${i % 7}`,
        page: `${property}${i % 3 === 0 ? '' : `docs/${i % 4}`}`,
        country: 'deu',
        device: 'DESKTOP',
        clicks: 3 + i,
        impressions: 40 + 5 * i,
        position: 1 + (i % 9),
      })),
    );
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/search`);
    await page.getByRole('button', { name: 'Link Search Console' }).click();
    // Google's consent (the fake agrees at once), back on /account, then on this tab choosing a property.
    await page.getByLabel('Property').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/sites/${site}/search`);
    await page.getByLabel('Property').selectOption(property);
    await page.getByRole('button', { name: 'Link property' }).click();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByTestId('gsc-queries').waitFor();
    await settled(page);
    const totals = google.rows.get(property)?.reduce((a, r) => a + r.clicks, 0) ?? 0;
    await expect(page.getByTestId('gsc-clicks').innerText()).resolves.toContain(String(totals));
    await expect(page.getByTestId('gsc-queries').innerText()).resolves.toContain('tinytrack query 6');
    await expect(page.getByTestId('gsc-pages').innerText()).resolves.toContain('/docs/1');
    await expect(page.getByTestId('gsc-link').innerText()).resolves.toContain(`Linked to ${property}`);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'search');

    // The period is in the URL: a reload shows the same one.
    await page.getByLabel('Period').selectOption('90');
    expect(new URL(page.url()).searchParams.get('days')).toBe('90');
    await page.reload();
    await page.getByTestId('gsc-queries').waitFor();
    expect(await page.getByLabel('Period').inputValue()).toBe('90');
    await expect(page.getByTestId('gsc-clicks').innerText()).resolves.toContain(String(totals));

    // A failed sync shows Google's error as the link's last error.
    google.failNext(403, 1);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await expect(page.getByTestId('gsc-last-error').innerText()).resolves.toContain('the Google account cannot read this Search Console property');

    await page.getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('button', { name: 'Link Search Console' }).waitFor();
    expect(google.revoked.size).toBe(1);
    await page.context().close();
  }, 120_000);

  it('revokes the Google grant when the site is deleted from its settings', async () => {
    const token = await svc.token('search-deleter');
    const site = await svc.site(token, { prefix: 'dash-search-del' });
    google.properties.push({ siteUrl: `https://${site}/`, permissionLevel: 'siteOwner' });
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/search`);
    await page.getByRole('button', { name: 'Link Search Console' }).click();
    await page.getByLabel('Property').waitFor();
    const revokedBefore = google.revoked.size;
    await page.goto(`${svc.url}/sites/${site}/settings`);
    await page.getByLabel('Type the hostname to delete the site (collected data stays)').fill(site);
    await page.getByRole('button', { name: 'Delete site' }).click();
    await page.waitForURL(`${svc.url}/`);
    expect(google.revoked.size).toBe(revokedBefore + 1);
    await page.context().close();
  }, 120_000);
});
