/**
 * Outbound links in the dashboard (issue 39), in a real Chromium against the
 * real service: the site's redirect hosts are set in its settings (a refusal
 * shown), clicks followed through `/r` show in the overview's outbound links
 * by target host. No WCAG 2 AA error; screenshots at 1280 and 360 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';

let svc: TestService;
let browser: Browser;
let token: string;
let site: string;

const follow = (u: string) =>
  fetch(`${svc.url}/r?${new URLSearchParams({ hostname: site, u })}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0.0.0 Safari/537.36' } });

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token('outbound-dash-owner');
  site = await svc.site(token, { prefix: 'dash-outbound' });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('dashboard outbound links', () => {
  it('sets the redirect hosts in the settings, and shows followed redirects by host in the overview', async () => {
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/settings`);
    await page.getByTestId('redirect-hosts').waitFor();
    await settled(page);
    await page.getByTestId('redirect-hosts').fill('not a host');
    await page.getByRole('button', { name: 'Save hosts' }).click();
    await page.getByText('redirect_hosts must be a list of at most 20 hostnames').waitFor();
    await page.getByTestId('redirect-hosts').fill('Pay.Example, docs.example');
    // The read of the stored list after the save answers late: meanwhile the field keeps what was typed, never the old list.
    await page.route('**/setup', async (route) => {
      await new Promise((r) => setTimeout(r, 1000));
      await route.continue();
    });
    await page.getByRole('button', { name: 'Save hosts' }).click();
    await page.getByText('Redirect hosts saved.').waitFor();
    await expect(page.getByTestId('redirect-hosts').inputValue()).resolves.toBe('Pay.Example, docs.example');
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token })).json.redirect_hosts).toEqual(['pay.example', 'docs.example']);
    await expect.poll(() => page.getByTestId('redirect-hosts').inputValue()).toBe('pay.example, docs.example');
    await page.unroute('**/setup');

    for (const u of ['https://pay.example/a', 'https://pay.example/b', 'https://docs.example/']) expect((await follow(u)).status).toBe(302);
    expect((await follow('https://evil.example/')).status).toBe(400);
    await svc.until(
      () => svc.req('GET', `/api/sites/${site}/events/outbound/metadata?key=host`, { token }).then((r) => r.json.values.length as number),
      (n) => n === 2,
    );
    await page.goto(`${svc.url}/sites/${site}`);
    const panel = page.getByTestId('outbound-links');
    await panel.getByText('pay.example').waitFor();
    await expect(panel.innerText()).resolves.toMatch(/pay\.example\s+1\s+2[\s\S]*docs\.example\s+1\s+1/);
    await settled(page);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'outbound-links');
  }, 60_000);
});
