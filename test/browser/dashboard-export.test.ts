/**
 * The settings' "Export data" panel (issue 42) in a real Chromium against the
 * real service: it starts at the period the owner was reading (the settings
 * tab carries it), downloads CSV and NDJSON of the events with the owner's
 * token (a Blob saved through `<a download>`), holds none of the stored
 * visitor hashes, offers the API series, shows the API's refusal of a bad
 * range, and has no WCAG 2 AA error; screenshots at 1280 and 360 px.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { registrationKey } from '#domain/registration.ts';
import { eventRow } from '../contract/event-store.contract.ts';
import { launchChromium } from '../support/browser.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

const OWNER = 'export-dash-owner';
const HASH = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const DAY = 86_400_000;

let svc: TestService;
let browser: Browser;
beforeAll(async () => {
  svc = await startTestService();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** Clicks the button and answers the saved file's name and text. */
async function downloaded(page: Page, button: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return { name: download.suggestedFilename(), text: readFileSync((await download.path()) as string, 'utf8') };
}

describe('dashboard export', () => {
  it('downloads the period’s events as CSV and NDJSON with the token, without visitor hashes, and shows a refusal', async () => {
    const token = await svc.token(OWNER);
    const site = await svc.site(token, { prefix: 'dash-export' });
    const today = Math.floor(Date.now() / DAY) * DAY;
    const row = (ts: number, id: string, path: string) => eventRow({ site, registration: registrationKey(OWNER, site), ts, id, path, visitor: HASH, referrer: 'https://news.example/a,b' });
    await svc.node.runtime.events.saveEvents([row(today - 2 * DAY + 1_000, 'in-week', '/pricing'), row(today - 20 * DAY, 'three-weeks-ago', '/old')]);

    // bypassCSP: the accessibility check injects axe as an inline script.
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/overview?period=7d`);
    await page.getByRole('link', { name: 'Settings' }).click();
    const panel = page.getByRole('region', { name: 'Export data' });
    await panel.waitFor();
    await settled(page);
    expect(await panel.getByLabel('Period').inputValue()).toBe('7d');
    expect(await panel.getByRole('button').allInnerTexts()).toEqual(['CSV', 'NDJSON', 'CSV', 'NDJSON']);

    const csv = await downloaded(page, 'Export pageviews and events as CSV');
    const first = new Date(today - 6 * DAY).toISOString().slice(0, 10);
    const last = new Date(today).toISOString().slice(0, 10);
    expect(csv.name).toBe(`${site}-events-${first}-${last}.csv`);
    const lines = csv.text.split('\r\n');
    expect(lines[0]?.startsWith('time,kind,id,')).toBe(true);
    expect([lines.length, lines[1]]).toEqual([3, expect.stringContaining(',in-week,')]);
    expect(lines[1]).toContain('"https://news.example/a,b"');
    await panel.getByRole('status').filter({ hasText: `Downloaded ${csv.name}.` }).waitFor();

    await panel.getByLabel('Period').selectOption('30d');
    const ndjson = await downloaded(page, 'Export pageviews and events as NDJSON');
    expect(ndjson.name).toBe(`${site}-events-${new Date(today - 29 * DAY).toISOString().slice(0, 10)}-${last}.ndjson`);
    expect(ndjson.text.split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toEqual(['three-weeks-ago', 'in-week']);
    for (const text of [csv.text, ndjson.text]) expect(text).not.toContain(HASH);

    const api = await downloaded(page, 'Export API requests as NDJSON');
    expect([api.name.includes(`${site}-api-`), api.text]).toEqual([true, '']);
    expect(await accessibilityErrors(page)).toEqual([]);
    await panel.scrollIntoViewIfNeeded();
    await screenshots(page, 'export');

    await panel.getByLabel('Period').selectOption('custom');
    await panel.getByLabel('First day').fill('2026-03-10');
    await panel.getByLabel('Last day').fill('2026-03-01');
    await page.getByRole('button', { name: 'Export pageviews and events as CSV' }).click();
    await panel.getByRole('alert').filter({ hasText: 'invalid range' }).waitFor();
    // A change of the days clears the refusal.
    await panel.getByLabel('Last day').fill('2026-03-20');
    expect(await panel.getByRole('alert').count()).toBe(0);
  });
});
