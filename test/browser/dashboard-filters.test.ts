/**
 * The filter menu (issue 40, part 4) in a real Chromium against the real
 * service, traffic sent through the collector: "is not" and "contains"
 * filters added through the menu show the API's numbers for that filter; two
 * filters combine; a chip is edited and removed; an event filter shows the
 * pages of the visitors who did the event; "Live now" and the live panel
 * count only the filtered visitors. Keyboard: Escape closes the menu and
 * gives focus back. No WCAG 2 AA error; screenshots at 1280 and 360 px in
 * light and dark mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';
import { localParts, zonedToUnix } from '#domain/reports/time.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const document: Any;
declare const location: Any;

let svc: TestService;
let browser: Browser;
let token: string;
let site: string;
let page: Page;

const ua = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.${n}.0 Safari/537.36`;
/** A beacon of visitor `n` from a browser in `timezone` (the collector's country when nothing else names one). */
async function beacon(n: number, timezone: string, body: Record<string, unknown>) {
  const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, ua: ua(n), timezone, ...body }), headers: { 'user-agent': ua(n) } });
  expect(r.text).toBe('ok');
}

/** The default period (the last 30 days, UTC) and `filter`, as the API's query. */
function query(filter: string): string {
  const now = localParts('UTC', Date.now() / 1000);
  const range = { from: zonedToUnix('UTC', now.year, now.month, now.day - 29), to: zonedToUnix('UTC', now.year, now.month, now.day + 1) };
  return `from=${range.from}&to=${range.to}&tz=UTC${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`;
}
async function api(path: string, filter: string): Promise<Any> {
  const r = await svc.req('GET', `/api/sites/${site}/${path}${path.includes('?') ? '&' : '?'}${query(filter)}`, { token });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.json;
}

/** A number of the overview's stats as shown (en-US). */
const stat = async (testId: string) => Number((await page.getByTestId(testId).locator('.stat-value').innerText()).replace(/,/g, ''));

/** Until the view shows `filter` in its URL and no panel is loading. */
async function showing(filter: string | null) {
  await page.waitForFunction((f) => new URL(location.href).searchParams.get('filter') === f, filter);
  await settled(page);
}

/** The view's visitors, pageviews and pages come to equal the API's for `filter` (panels load after the URL changes). */
async function expectNumbersOf(filter: string) {
  const overview = await api('overview', filter);
  const pages: string[] = (await api('breakdown?dim=pages&limit=10', filter)).rows.map((r: Any) => r.name);
  await expect.poll(async () => [await stat('visitors'), await stat('pageviews')]).toEqual([overview.totals.visitors, overview.totals.pageviews]);
  const listed = async () => (await page.getByTestId('breakdown-pages').innerText()).split('\n').filter((line) => line.startsWith('/'));
  await expect.poll(async () => (await listed()).map((line) => line.split(/\s/)[0])).toEqual(pages);
  return { overview, pages };
}

/** Opens the menu (or a chip's), chooses dimension and operator, types the value and applies. */
async function addFilter(dimension: string, operator: string, value: string, opener = page.getByRole('button', { name: 'Filter', exact: true })) {
  await opener.click();
  const menu = page.getByRole('dialog');
  await menu.getByLabel('Dimension').selectOption({ label: dimension });
  await menu.getByLabel('Operator').selectOption({ label: operator });
  await menu.getByLabel('Value', { exact: true }).fill(value);
  await menu.getByRole('button', { name: 'Apply' }).click();
  await menu.waitFor({ state: 'detached' });
}

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token('filters-owner');
  site = await svc.site(token, { prefix: 'dash-filters' });
  browser = await launchChromium();
  await beacon(1, 'Europe/Berlin', { path: '/pricing', referrer: 'https://www.google.com/' });
  await beacon(1, 'Europe/Berlin', { path: '/pricing', type: 'event', event: 'signup' });
  await beacon(2, 'Europe/Paris', { path: '/pricing/team' });
  await beacon(3, 'Europe/Berlin', { path: '/blog' });
  await svc.until(() => api('overview', ''), (o) => o.totals.pageviews === 3 && o.live === 3);
  page = await ownerPage(browser, token, { bypassCSP: true });
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('dashboard filter menu', () => {
  it('adds an "is not" filter through the menu, its value suggested from the breakdown and narrowed as typed', async () => {
    await page.goto(`${svc.url}/sites/${site}`);
    await settled(page);
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const menu = page.getByRole('dialog', { name: 'Add a filter' });
    await menu.getByLabel('Dimension').selectOption({ label: 'Country' });
    await expect(menu.getByTestId('filter-suggestions').innerText()).resolves.toMatch(/DE[\s\S]*FR/);
    await menu.getByLabel('Value', { exact: true }).fill('f');
    await page.waitForFunction(() => document.querySelector('[data-testid="filter-suggestions"]')?.textContent === 'FR');
    await menu.getByLabel('Value', { exact: true }).fill('');
    await menu.getByRole('button', { name: 'DE' }).click();
    await expect(menu.getByLabel('Value', { exact: true }).inputValue()).resolves.toBe('DE');
    await menu.getByLabel('Operator').selectOption({ label: 'is not' });
    await menu.getByRole('button', { name: 'Apply' }).click();
    await showing('country!DE');
    const { overview, pages } = await expectNumbersOf('country!DE');
    expect([overview.totals.visitors, pages]).toEqual([1, ['/pricing/team']]);
    await expect(page.getByTestId('filter-country').innerText()).resolves.toContain('Country is not DE');
  }, 60_000);

  it('combines a "contains" filter with it, edits a chip in place, and clears all', async () => {
    await addFilter('Page', 'contains', 'pricing');
    await showing('country!DE;page~pricing');
    expect((await expectNumbersOf('country!DE;page~pricing')).overview.totals.visitors).toBe(1);
    // The country chip edited to "is": the pricing pages of German visitors.
    await addFilter('Country', 'is', 'DE', page.getByTestId('filter-country').getByRole('button', { name: /^Country is not DE/ }));
    await showing('country:DE;page~pricing');
    const { pages } = await expectNumbersOf('country:DE;page~pricing');
    expect(pages).toEqual(['/pricing']);
    await page.getByRole('button', { name: 'Remove filter Page contains pricing' }).click();
    await showing('country:DE');
    expect((await expectNumbersOf('country:DE')).overview.totals.visitors).toBe(2);
    await addFilter('Page', 'is', '/blog');
    await showing('country:DE;page:%2Fblog');
    await page.getByRole('button', { name: 'Clear all' }).click();
    await showing(null);
    await expect.poll(() => stat('visitors')).toBe(3);
  }, 60_000);

  it('shows under an event filter the numbers and pages of the visitors who did the event, not zero', async () => {
    await addFilter('Event', 'is', 'signup');
    await showing('event:signup');
    const { overview, pages } = await expectNumbersOf('event:signup');
    expect([overview.totals.visitors, overview.totals.pageviews, pages]).toEqual([1, 1, ['/pricing']]);
    await page.getByRole('button', { name: /Remove filter Event/ }).click();
    await showing(null);
  }, 60_000);

  it('counts in "Live now" and in the live panel only the visitors the filter keeps', async () => {
    await expect.poll(() => stat('live')).toBe(3);
    await addFilter('Country', 'is', 'FR');
    await showing('country:FR');
    expect((await api('overview', 'country:FR')).live).toBe(1);
    await expect.poll(() => stat('live')).toBe(1);
    await page.waitForFunction(() => document.querySelector('[data-testid="live-visitors"] .stat-value')?.textContent === '1', undefined, { timeout: 10_000 });
  }, 60_000);

  it('closes on Escape, giving focus back to the Filter button; no WCAG AA error with the menu open', async () => {
    const opener = page.getByRole('button', { name: 'Filter', exact: true });
    await opener.click();
    await page.waitForFunction(() => document.activeElement?.closest('[role="dialog"]') != null);
    await expect(opener.getAttribute('aria-expanded')).resolves.toBe('true');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.textContent === 'Filter');
    await opener.click();
    await page.getByRole('dialog').getByLabel('Dimension').selectOption({ label: 'Page' });
    await page.getByRole('dialog').getByTestId('filter-suggestions').waitFor();
    await settled(page);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'filter-menu');
  }, 60_000);
});
