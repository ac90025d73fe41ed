/**
 * The overview's panels (issue 40, part 3) in a real Chromium against the real
 * service: traffic sent through the collector (`POST /events`) and events
 * imported from a fake Simple Analytics export. Full lists with search,
 * paging and percentages; the chosen tab kept across a reload; country names
 * and the world map; languages grouped; the "Direct / None" source; "—" for
 * the visitors of imported events; no WCAG AA error, screenshots in light and
 * dark mode at 1280 and 360 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';
import { startFakeSimpleAnalytics, type FakeSimpleAnalytics, type SaDatapoint } from '../support/fake-simpleanalytics.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const document: Any;

const SOURCE = 'panels-old.example.org';
/** Paths enough for two pages of the full list (50 a page). */
const PATHS = Array.from({ length: 62 }, (_, i) => `/p/${String(i).padStart(2, '0')}`);

let sa: FakeSimpleAnalytics;
let svc: TestService;
let browser: Browser;
let token: string;
let site: string;
let page: Page;

const ua = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.${n}.0 Safari/537.36`;
/** A share as the dashboard shows it in en-US: one decimal at most ("1.6%"). */
const percent = (part: number, whole: number) => new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 }).format(part / whole);
const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** One pageview through the collector from visitor `n` (its own user agent). */
async function beacon(n: number, fields: { path: string; timezone: string; language: string; referrer?: string; type?: string; event?: string }): Promise<void> {
  const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, ua: ua(n), id: randomUUID(), ...fields }), headers: { origin: `https://${site}` } });
  expect(r.status).toBeLessThan(300);
}

async function api(path: string): Promise<Any> {
  const r = await svc.req('GET', path, { token });
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.json;
}

/** Imports `events` through the Simple Analytics import and waits for the job to finish. */
async function importEvents(events: SaDatapoint[]): Promise<void> {
  sa.setData(SOURCE, { pageviews: [], events });
  const created = await svc.req('POST', `/api/sites/${site}/imports`, {
    token,
    body: { source: 'simpleanalytics', range_start: utcDay(-3), range_end: utcDay(-1), config: { user_id: 'sa_user_panels', api_key: 'sa_api_key_dashboard_panels_0001', source_hostname: SOURCE } },
  });
  expect(created.status, created.text).toBe(201);
  await svc.until(
    async () => (await api(`/api/sites/${site}/imports`)).imports[0]?.status,
    (s) => s === 'succeeded',
  );
}

const range = () => {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) / 1000;
  return `from=${today - 29 * 86_400}&to=${today + 86_400}&tz=UTC`;
};

beforeAll(async () => {
  sa = await startFakeSimpleAnalytics();
  svc = await startTestService({ SIMPLEANALYTICS_BASE_URL: sa.url, IMPORT_RETRY_BASE_MS: '10' });
  browser = await launchChromium();
  token = await svc.token('panels-owner');
  site = await svc.site(token, { prefix: 'dash-panels' });
  const zones = ['Europe/Berlin', 'Europe/Paris', 'America/New_York'];
  const languages = ['en-US', 'en-GB', 'en', 'de-DE'];
  // Visitor i views one page; every third comes from Google, the others have no referrer.
  for (const [i, path] of PATHS.entries()) {
    await beacon(i, { path, timezone: zones[i % 3]!, language: languages[i % 4]!, referrer: i % 3 === 0 ? 'https://www.google.com/' : undefined });
  }
  await beacon(0, { path: '/p/00', timezone: 'Europe/Berlin', language: 'en-US', type: 'event', event: 'signup' });
  await svc.until(
    () => api(`/api/sites/${site}/overview?${range()}`),
    (o) => o.totals.pageviews === PATHS.length,
  );
  const start = Date.parse(`${utcDay(-2)}T12:00:00Z`) / 1000;
  await importEvents([0, 1, 2].map((i) => ({ added_unix: start + i * 60, uuid: randomUUID(), path: '/p/01', datapoint: 'imported_download', is_robot: false })));
  page = await ownerPage(browser, token, { bypassCSP: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await sa?.close();
});

async function openOverview(query = ''): Promise<void> {
  await page.goto(`${svc.url}/sites/${site}${query}`);
  await page.getByRole('heading', { name: 'Traffic', exact: true }).waitFor();
  await page.getByTestId('breakdown-pages').locator('tbody tr').first().waitFor();
  await settled(page);
}

/** The visible rows of a table as their cells' texts. */
const rowsOf = (table: Any): Promise<string[][]> =>
  table.locator('tbody tr').evaluateAll((trs: Any[]) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c: Any) => c.innerText.trim())));

describe('dashboard panels', () => {
  it('names countries and shades them on the world map, with the numbers of the API', async () => {
    await openOverview();
    const countries = page.getByTestId('breakdown-countries');
    const api_ = (await api(`/api/sites/${site}/breakdown?dim=countries&${range()}`)).rows as { name: string; visitors: number }[];
    const names: Record<string, string> = { DE: 'Germany', FR: 'France', US: 'United States' };
    const shown = await rowsOf(countries.locator('table'));
    expect(shown.map((r) => r.slice(0, 2))).toEqual(api_.map((r) => [names[r.name], String(r.visitors)]));
    const map = countries.getByTestId('world-map');
    await map.waitFor();
    expect(await map.getAttribute('role')).toBe('img');
    const shaded = await map.locator('path.shaded').evaluateAll((ps: Any[]) => [...new Set(ps.map((p) => p.dataset.country))].sort());
    expect(shaded).toEqual(['DE', 'FR', 'US']);
    expect(await map.locator('path').count()).toBeGreaterThan(150);
  });

  it('shows the visits without a source as "Direct / None", counted as the API counts source:""', async () => {
    const direct = (await api(`/api/sites/${site}/overview?${range()}&filter=source:`)).totals;
    expect(direct.visitors).toBeGreaterThan(0);
    const rows = await rowsOf(page.getByTestId('breakdown-sources').locator('table'));
    expect(rows).toContainEqual(['Direct / None', String(direct.visitors), String(direct.pageviews)]);
  });

  it('shows "—" with a note for the visitors of imported events', async () => {
    const events = page.getByTestId('breakdown-events');
    const row = events.locator('tbody tr', { hasText: 'imported_download' });
    expect((await row.locator('td').allInnerTexts()).map((t) => t.trim())).toEqual(['—*', '3']);
    expect(await row.locator('.imported').getAttribute('title')).toContain('Imported events carry no visitors');
    await expect(events.getByTestId('imported-note').innerText()).resolves.toContain('Imported events carry no visitors');
    expect((await rowsOf(events.locator('table'))).find((r) => r[0]?.includes('signup'))?.slice(1)).toEqual(['1', '1']);
  });

  it('offers exit pages among the pages panel’s tabs', async () => {
    const options = await page.getByLabel('Show').first().locator('option').allInnerTexts();
    expect(options).toEqual(['Top pages', 'Entry pages', 'Exit pages']);
  });

  it('groups languages by primary language, keeps the tab across a reload, and a group row filters on its primary subtag', async () => {
    await page.locator('#devices-dim').selectOption({ label: 'Languages' });
    const languages = page.getByTestId('breakdown-languages');
    // The devices rows stay in the table until the languages answer: wait for a language.
    await languages.locator('tbody tr', { hasText: 'English' }).first().waitFor();
    await settled(page);
    expect(new URL(page.url()).searchParams.get('tabs')).toBe('devices:languages');
    const raw = (await api(`/api/sites/${site}/breakdown?dim=languages&${range()}`)).rows as { name: string; visitors: number }[];
    const english = raw.filter((r) => r.name.startsWith('en')).reduce((sum, r) => sum + r.visitors, 0);
    const german = raw.filter((r) => r.name.startsWith('de')).reduce((sum, r) => sum + r.visitors, 0);
    expect((await rowsOf(languages.locator('table'))).map((r) => r.slice(0, 2))).toEqual([
      ['English', String(english)],
      ['German', String(german)],
    ]);
    await page.getByRole('button', { name: 'View all languages' }).click();
    const full = page.getByTestId('full-list-devices');
    await full.locator('tbody tr').first().waitFor();
    // Each group lists its variants under it, named in the page's locale.
    expect((await rowsOf(full.locator('table'))).map((r) => r[0])).toEqual(['English', 'British English', 'American English', 'English', 'German', 'German (Germany)']);
    await page.keyboard.press('Escape');
    await full.waitFor({ state: 'detached' });
    await page.reload();
    await languages.locator('tbody tr').first().waitFor();
    expect(await page.locator('#devices-dim').inputValue()).toBe('languages');
    await settled(page);
    await screenshots(page, 'panels');
    expect(await accessibilityErrors(page)).toEqual([]);
    await languages.getByRole('button', { name: 'English' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('filter')).toBe('language:en');
  });

  it('opens a full list with search, paging and each row’s share of the period’s visitors; Escape closes it and focus returns', async () => {
    await openOverview();
    const visitors = (await api(`/api/sites/${site}/overview?${range()}`)).totals.visitors as number;
    const opener = page.getByRole('button', { name: 'View all top pages' });
    await opener.click();
    const dialog = page.getByTestId('full-list-pages');
    await dialog.locator('tbody tr').first().waitFor();
    await expect(dialog.getByRole('status').innerText()).resolves.toBe(`${PATHS.length} of ${PATHS.length} rows`);
    expect(await dialog.locator('tbody tr').count()).toBe(50);
    await dialog.getByText('Page 1 of 2').waitFor();
    const first = (await rowsOf(dialog.locator('table')))[0]!;
    expect(first[3]).toBe(percent(Number(first[1]), visitors));
    await dialog.getByRole('button', { name: 'Next' }).click();
    await dialog.getByText('Page 2 of 2').waitFor();
    expect(await dialog.locator('tbody tr').count()).toBe(PATHS.length - 50);
    await screenshots(page, 'panels-full-list');
    expect(await accessibilityErrors(page)).toEqual([]);
    await dialog.getByLabel('Search').fill('/p/07');
    expect(await rowsOf(dialog.locator('table'))).toEqual([['/p/07', '1', '1', percent(1, visitors)]]);
    await dialog.getByText('1 of 62 rows').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('View all top pages');
  });

  it('filters from a row of the full list, as a panel row does', async () => {
    await page.getByRole('button', { name: 'View all sources' }).click();
    const dialog = page.getByTestId('full-list-sources');
    await dialog.getByRole('button', { name: 'Direct / None' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => new URL(page.url()).searchParams.get('filter')).toBe('source:');
  });
});
