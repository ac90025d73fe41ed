/**
 * A site's data in the dashboard's settings (issue 42), in a real Chromium
 * against the real service: the retention months saved (an out-of-range value
 * refused with the API's text), the daily purge's last run shown, and the
 * "Delete data" form, whose button enables only once the hostname is typed,
 * showing what was removed; the erased days are gone from the API's reports.
 * No WCAG 2 AA error; screenshots at 1280 and 360 px in test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { registrationKey } from '#domain/registration.ts';
import { INVALID_RETENTION } from '#domain/data-retention/retention.ts';
import { row } from '../contract/report-store.contract.ts';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';

const OWNER = 'data-dash-owner';
const DAY = 86_400;
const TODAY = Math.floor(Date.now() / 1000 / DAY) * DAY;
const dayOf = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);
let svc: TestService;
let browser: Browser;
let token: string;
let site: string;

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token(OWNER);
  site = await svc.site(token, { prefix: 'dash-data' });
  const registration = registrationKey(OWNER, site);
  // A pageview at noon 3, 2 and 1 days ago, and one 60 days ago (past a one-month retention).
  await svc.node.runtime.events.saveEvents([60, 3, 2, 1].map((n) => ({ ...row(site, TODAY - n * DAY + DAY / 2, { path: `/d${n}`, visitor: `v${n}` }), registration })));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

const paths = async () => {
  const r = await svc.req('GET', `/api/sites/${site}/breakdown?dim=pages&limit=100&from=${TODAY - 90 * DAY}&to=${TODAY + DAY}`, { token });
  return r.json.rows.map((x: { name: string }) => x.name).sort();
};

describe('data retention and erasure in the site’s settings', () => {
  it('saves the retention months, refuses one out of range, and shows the last purge', async () => {
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/settings`);
    await page.getByRole('heading', { name: 'Data retention' }).waitFor();
    await settled(page);
    await expect(page.getByTestId('retention-months').inputValue()).resolves.toBe('25');
    await expect(page.getByTestId('last-purge').innerText()).resolves.toBe('The daily purge (00:00 UTC) has not run on this site yet.');
    await page.getByTestId('retention-months').fill('26');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText(INVALID_RETENTION).waitFor();
    await page.getByTestId('retention-months').fill('1');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Retention saved: the next daily purge applies it.').waitFor();
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token })).json.retention_months).toBe(1);

    await svc.node.scheduler.runNamed('retention-purge', new Date());
    await page.reload();
    await settled(page);
    await expect(page.getByTestId('last-purge').innerText()).resolves.toMatch(/^Last purge .+: 1 row removed \(kept from .+\); oldest row kept .+\.$/);
    await expect(page.getByTestId('retention-months').inputValue()).resolves.toBe('1');
    expect(await paths()).toEqual(['/d1', '/d2', '/d3']);
  });

  it('deletes the rows of a range of days once the hostname is typed, and shows what was removed', async () => {
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/settings`);
    await page.getByRole('heading', { name: 'Delete data' }).waitFor();
    await settled(page);
    const button = page.getByTestId('erase-button');
    await page.getByTestId('erase-from').fill(dayOf(TODAY - 3 * DAY));
    await page.getByTestId('erase-to').fill(dayOf(TODAY - 2 * DAY));
    await expect(button.isDisabled()).resolves.toBe(true);
    await page.getByTestId('erase-confirm').fill(`${site}x`);
    await expect(button.isDisabled()).resolves.toBe(true);
    await page.getByTestId('erase-confirm').fill(site);
    await expect(button.isDisabled()).resolves.toBe(false);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'data-retention');
    await button.click();
    await page
      .getByText(`Removed from ${dayOf(TODAY - 3 * DAY)} to ${dayOf(TODAY - 2 * DAY)}: 2 rows of events, 0 rows of API requests, 0 rows of Search Console, 0 rows of crawler hits.`)
      .waitFor();
    await expect(button.isDisabled()).resolves.toBe(true);
    expect(await paths()).toEqual(['/d1']);
  });
});
