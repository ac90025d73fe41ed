/**
 * The dashboard in a real Chromium against the real local service: sign-in
 * through `npm run admin -- login-link`, adding and verifying a site, traffic
 * sent by latest.js and shown with the numbers the API gives for the same
 * range, a page row that filters, the public share page, site icons shown
 * under the page's CSP, no console error on any view, and an accessibility
 * check (HTML_CodeSniffer, WCAG 2 AA errors) of every view, with screenshots
 * at 1280 and 360 px in test/artifacts/ for reviewers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { html, launchChromium, startPageOrigin, USER_AGENT, type PageOrigin } from '../support/browser.ts';
import { startTestService, unique, type TestService } from '../support/local-node.ts';
import { png } from '../support/png.ts';
import { accessibilityErrors, screenshots } from '../support/dashboard-checks.ts';
import { zonedToUnix, localParts } from '#domain/reports/time.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const window: Any;
declare const document: Any;

const ROOT = join(import.meta.dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test', 'artifacts');
const OWNER = 'dashboard-owner';

let svc: TestService;
let token: string;
let browser: Browser;
let pageSites: PageOrigin;
let pageOrigin: string;
let pages: Map<string, string>;
/** The signed-in owner's tab: the token lives in this tab's sessionStorage. */
let ownerContext: BrowserContext;
let owner: Page;

/** `npm run admin -- login-link <user>` against the running service, as an operator runs it. */
async function loginLink(user: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/tt.ts', 'admin', 'login-link', user], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: svc.dataDir, HOST: '127.0.0.1', PORT: new URL(svc.url).port },
  });
  return stdout.trim();
}

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token(OWNER);
  pageSites = await startPageOrigin();
  pageOrigin = pageSites.origin;
  pages = pageSites.pages;
  browser = await launchChromium();
  ownerContext = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  owner = await ownerContext.newPage();
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  pageSites?.close();
  await svc?.stop();
});

/** A number as the dashboard shows it in en-US ("1,234"). */
const shown = async (page: Page, testId: string) => Number((await page.getByTestId(testId).locator('.stat-value').innerText()).replace(/,/g, ''));

async function api(path: string): Promise<Any> {
  const r = await svc.req('GET', path, { token });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.json;
}

/** Visits `path` on the page server with latest.js for `site` from a fresh visitor (own context). */
async function visit(site: string, path: string): Promise<void> {
  pages.set(path, html(`<script async src="${svc.url}/latest.js" data-hostname="${site}"></script>`));
  const context = await browser.newContext({ userAgent: USER_AGENT, timezoneId: 'Europe/Berlin' });
  const page = await context.newPage();
  await page.goto(pageOrigin + path);
  await page.waitForFunction(() => typeof window.tt_event === 'function');
  await context.close();
}

/** Start of today in UTC, and of the day 29 days before: the default period's range. */
function last30DaysUtc(): { from: number; to: number } {
  const now = localParts('UTC', Date.now() / 1000);
  return { from: zonedToUnix('UTC', now.year, now.month, now.day - 29), to: zonedToUnix('UTC', now.year, now.month, now.day + 1) };
}

/** Every site icon on the page has left its placeholder and finished loading (or failed to). */
async function iconsSettled(page: Page): Promise<void> {
  await page.waitForFunction(() => [...document.querySelectorAll('img.site-icon')].every((img: Any) => !img.src.startsWith('data:') && img.complete));
}

/** A signed-in owner's views of `site`: name, path, and a heading that shows once it is there. */
const ownerViews = (site: string): [string, string, string][] => [
  ['sites', '/', 'Your sites'],
  ['overview', `/sites/${site}`, 'Traffic'],
  ['retention', `/sites/${site}/retention`, 'Engagement retention'],
  ['imports', `/sites/${site}/imports`, 'Import history'],
  ['settings', `/sites/${site}/settings`, 'Install and verify'],
];

/** Opens the view and waits until its heading shows and no panel is loading. */
async function openView(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(svc.url + path);
  await page.getByRole('heading', { name: heading, exact: true }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0);
}

const setPublic = async (site: string, isPublic: boolean) => expect((await svc.req('PATCH', `/api/sites/${site}`, { token, body: { is_public: isPublic } })).status).toBe(200);

describe('signing in', () => {
  it('a login link signs the owner in once; the used link is refused', async () => {
    const link = await loginLink(OWNER);
    expect(link).toMatch(new RegExp(`^${svc.url}/login#code=[A-Za-z0-9_-]{43}$`));
    await owner.goto(link);
    await owner.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
    expect(new URL(owner.url()).pathname).toBe('/');
    // The code left the address bar and the history.
    expect(owner.url()).not.toContain('code=');
    const other = await browser.newContext();
    const again = await other.newPage();
    await again.goto(link);
    await expect(again.getByRole('alert').innerText()).resolves.toContain('not valid');
    await other.close();
  }, 60_000);

  it('without a token the page goes to sign-in and back to the same page afterwards', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${svc.url}/sites/some.example/retention?period=7d`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.goto(await loginLink(OWNER));
    await page.waitForURL((url) => url.pathname === '/sites/some.example/retention');
    expect(new URL(page.url()).search).toBe('?period=7d');
    await context.close();
  }, 60_000);

  it('an expired token leads back to sign-in, in one navigation however many calls it refused', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${svc.url}/login`);
    const expired = await svc.token(OWNER, -60);
    await page.evaluate((t: string) => window.sessionStorage.setItem('tt.token', JSON.stringify({ token: t, expiresAt: Date.now() + 3_600_000 })), expired);
    const toSignIn: string[] = [];
    page.on('request', (r) => {
      if (r.isNavigationRequest() && new URL(r.url()).pathname === '/login') toSignIn.push(r.url());
    });
    await page.goto(`${svc.url}/`);
    await page.waitForURL((url) => url.pathname === '/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The sites list asks two things at once: both are refused, and the page leaves once.
    expect(toSignIn).toHaveLength(1);
    await context.close();
  }, 60_000);
});

describe('ways back', () => {
  it('a mistyped site and a page that does not exist say so, with a link back to the sites', async () => {
    await owner.goto(`${svc.url}/sites/no-such-site.example`);
    await owner.getByTestId('unknown-site').waitFor();
    const missing = await owner.goto(`${svc.url}/nowhere/at/all`);
    expect(missing?.status()).toBe(404);
    await owner.getByRole('heading', { name: 'Not found' }).waitFor();
    await owner.getByRole('link', { name: 'Go to your sites' }).click();
    await owner.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
  }, 60_000);
});

describe('sessions', () => {
  it('last across tabs and a browser restart; signing out in one tab signs the others out, and the session is gone', async () => {
    const context = await browser.newContext();
    const first = await context.newPage();
    await first.goto(await loginLink(OWNER));
    await first.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
    // The session is a cookie no script reads; the tab holds only its short-lived token.
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.path, c.httpOnly, c.sameSite])).toEqual([['tt_session', '/dashboard', true, 'Strict']]);
    expect(await first.evaluate(() => document.cookie)).toBe('');
    const site = await svc.site(token, { prefix: 'session' });
    const second = await context.newPage();
    await second.goto(`${svc.url}/sites/${site}/settings`);
    await second.getByRole('heading', { name: 'Install and verify' }).waitFor();
    expect(new URL(second.url()).pathname).toBe(`/sites/${site}/settings`);

    const restarted = await browser.newContext({ storageState: await context.storageState() });
    const later = await restarted.newPage();
    await later.goto(`${svc.url}/`);
    await later.getByRole('heading', { name: 'Sites', exact: true }).waitFor();

    await first.getByRole('button', { name: 'Sign out' }).click();
    await first.waitForURL((url) => url.pathname === '/login');
    await second.waitForURL((url) => url.pathname === '/login');
    const afterwards = await restarted.newPage();
    await afterwards.goto(`${svc.url}/`);
    await afterwards.waitForURL((url) => url.pathname === '/login');
    await restarted.close();
    await context.close();
  }, 60_000);
});

describe('signing out', () => {
  it('forgets the token: the next page asks for sign-in again', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(await loginLink(OWNER));
    await page.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    expect(await page.evaluate(() => window.sessionStorage.getItem('tt.token'))).toBeNull();
    await page.goto(`${svc.url}/`);
    await page.waitForURL((url) => url.pathname === '/login');
    await context.close();
  }, 60_000);
});

describe('sites', () => {
  it('adds a site, shows the snippet, and verifies it', async () => {
    const hostname = unique('dash-add');
    await owner.goto(`${svc.url}/`);
    await owner.getByLabel('Hostname').fill(hostname);
    await owner.getByRole('button', { name: 'Add site' }).click();
    await owner.waitForURL((url) => url.pathname === `/sites/${hostname}/settings`);
    await expect(owner.getByTestId('verification').innerText()).resolves.toContain('Not verified yet');
    const snippet = await owner.getByTestId('snippet').inputValue();
    expect(snippet).toContain(`${svc.url}/latest.js`);
    svc.setPage(hostname, svc.scriptPage);
    await owner.getByRole('button', { name: 'Check the site now' }).click();
    await owner.getByTestId('verification').getByText(/^Verified/).waitFor();
    expect((await api(`/api/sites/${hostname}`)).verified_at).not.toBeNull();
    await owner.goto(`${svc.url}/`);
    await expect(owner.getByTestId(`site-${hostname}`).innerText()).resolves.toContain('Verified');
  }, 60_000);

  it("shows a verified site's own icon on the sites list, not the placeholder", async () => {
    const hostname = await svc.site(token, { prefix: 'dash-icon', verify: false });
    svc.setFile(`/${hostname}/icon.png`, png(32), { 'content-type': 'image/png' });
    svc.setPage(hostname, `<!doctype html><html><head><link rel="icon" href="/${hostname}/icon.png"><script async src="${svc.url}/latest.js"></script></head><body>hi</body></html>`);
    expect((await svc.req('POST', `/api/sites/${hostname}/verify`, { token })).json.verification.ok).toBe(true);
    await owner.goto(`${svc.url}/`);
    await owner.getByTestId(`site-${hostname}`).waitFor();
    await iconsSettled(owner);
    // The 32 px PNG the page links to, decoded: a refused or broken image has no natural size.
    expect(await owner.getByTestId(`site-${hostname}`).locator('img.site-icon').evaluate((img: Any) => img.naturalWidth)).toBe(32);
  }, 60_000);
});

describe('a site with traffic from latest.js', () => {
  let site: string;
  beforeAll(async () => {
    site = await svc.site(token, { prefix: 'dash' });
    await visit(site, '/pricing');
    await visit(site, '/pricing');
    await visit(site, '/about');
    await svc.until(() => api(`/api/sites/${site}/overview?from=${Math.floor(Date.now() / 1000) - 3600}&to=${Math.floor(Date.now() / 1000) + 3600}`), (o) => o.totals.pageviews >= 3);
  }, 90_000);

  it('shows the totals, chart points and top pages the API gives for the last 30 days', async () => {
    const overviewRequest = owner.waitForRequest((r) => r.url().includes(`/api/sites/${site}/overview?`));
    await owner.goto(`${svc.url}/sites/${site}`);
    const asked = new URL((await overviewRequest).url());
    const range = last30DaysUtc();
    expect([Number(asked.searchParams.get('from')), Number(asked.searchParams.get('to')), asked.searchParams.get('tz')]).toEqual([range.from, range.to, 'UTC']);
    const query = `from=${range.from}&to=${range.to}&tz=UTC`;
    const overview = await api(`/api/sites/${site}/overview?${query}`);
    await owner.getByTestId('pageviews').waitFor();
    expect(await shown(owner, 'pageviews')).toBe(overview.totals.pageviews);
    expect(await shown(owner, 'visitors')).toBe(overview.totals.visitors);
    expect(overview.totals.pageviews).toBe(3);
    const points = await owner
      .getByTestId('series')
      .locator('tbody tr')
      .evaluateAll((rows: Any[]) => rows.map((r) => [Number(r.dataset.t), ...[...r.querySelectorAll('td')].map((td: Any) => Number(td.dataset.value))]));
    expect(points).toEqual(overview.series.map((p: Any) => [p.t, p.pageviews, p.visitors]));
    const pagesApi = await api(`/api/sites/${site}/breakdown?dim=pages&limit=10&${query}`);
    // Each panel loads on its own: wait until the pages panel has its rows.
    await owner.getByTestId('breakdown-pages').locator('tbody tr').first().waitFor();
    const rows = await owner
      .getByTestId('breakdown-pages')
      .locator('tbody tr')
      .evaluateAll((trs: Any[]) => trs.map((tr) => [tr.querySelector('th').innerText.trim(), Number(tr.querySelectorAll('td')[1].innerText.replace(/,/g, ''))]));
    expect(rows).toEqual(pagesApi.rows.map((r: Any) => [r.name, r.value]));
    expect(rows[0]).toEqual(['/pricing', 2]);
    await screenshots(owner, 'overview');
  }, 60_000);

  it('charts what was observed: nothing after now, the running bucket as observed with its forecast apart, a year by months, the previous period beside', async () => {
    const rowsOf = () =>
      owner
        .getByTestId('series')
        .locator('tbody tr')
        .evaluateAll((rows: Any[]) => rows.map((r) => [Number(r.dataset.t), ...[...r.querySelectorAll('td')].map((td: Any) => Number(td.dataset.value))]));
    // The chart's overview reads (the sources panel also reads one, filtered on `source:`, for its Direct / None row).
    const asked: string[] = [];
    owner.on('request', (r) => {
      if (r.url().includes(`/api/sites/${site}/overview?`) && !new URL(r.url()).searchParams.has('filter')) asked.push(r.url());
    });
    await owner.goto(`${svc.url}/sites/${site}?period=today`);
    await owner.getByTestId('pageviews').waitFor();
    await owner.waitForFunction(() => document.querySelector('[data-testid="pageviews"] .stat-value')?.textContent === '3');
    const today = new URL(asked.at(0) as string).searchParams;
    const api_ = await api(`/api/sites/${site}/overview?from=${today.get('from')}&to=${today.get('to')}&tz=UTC`);
    const now = Date.now() / 1000;
    const begun = api_.series.filter((p: Any) => p.t <= now).map((p: Any) => [p.t, p.pageviews, p.visitors]);
    expect(begun.length).toBeLessThan(api_.series.length + (new Date().getUTCHours() === 23 ? 1 : 0));
    expect(await rowsOf()).toEqual(begun);
    // The last point is the running hour as observed, not its forecast.
    expect((await rowsOf()).at(-1)).toEqual(begun.at(-1));
    // The previous period is asked for too (its own range, the same buckets).
    await owner.waitForFunction(() => document.querySelector('.forecast')?.textContent?.includes('previous period'));
    expect(asked.some((u) => new URL(u).searchParams.get('from') === String(api_.previous_range.from))).toBe(true);

    asked.length = 0;
    await owner.goto(`${svc.url}/sites/${site}?period=12mo`);
    await owner.getByTestId('pageviews').waitFor();
    await owner.waitForFunction(() => document.querySelector('[data-testid="series"] caption')?.textContent === 'Pageviews and visitors per month');
    expect(new URL(asked[0] as string).searchParams.get('interval')).toBe('month');
    const months = await rowsOf();
    expect(months.length).toBeGreaterThanOrEqual(12);
    expect(months.length).toBeLessThanOrEqual(13);
    expect(months.at(-1)?.[1]).toBe(3);
    await owner.getByLabel('Chart by').selectOption('week');
    await owner.waitForURL((url) => url.searchParams.get('interval') === 'week');
    await owner.waitForFunction(() => document.querySelector('[data-testid="series"] caption')?.textContent === 'Pageviews and visitors per week');
    await screenshots(owner, 'chart-weeks');
  }, 60_000);

  it('a click on a page row filters the view: the filter is in the URL and the numbers are the filtered ones', async () => {
    await owner.goto(`${svc.url}/sites/${site}`);
    await owner.getByTestId('breakdown-pages').getByRole('button', { name: '/pricing' }).click();
    await owner.getByTestId('filter-page').waitFor();
    const url = new URL(owner.url());
    expect(url.searchParams.get('filter')).toBe('page:%2Fpricing');
    const range = last30DaysUtc();
    const filtered = await api(`/api/sites/${site}/overview?from=${range.from}&to=${range.to}&tz=UTC&filter=${encodeURIComponent('page:%2Fpricing')}`);
    expect(filtered.totals.pageviews).toBe(2);
    await owner.waitForFunction(() => document.querySelector('[data-testid="pageviews"] .stat-value')?.textContent === '2');
    expect(await shown(owner, 'visitors')).toBe(filtered.totals.visitors);
    // The same URL opened anew shows the same filtered view (a bookmark).
    await owner.goto(url.toString());
    await owner.getByTestId('filter-page').waitFor();
    await owner.waitForFunction(() => document.querySelector('[data-testid="pageviews"] .stat-value')?.textContent === '2');
    // Removing the chip brings the unfiltered numbers back.
    await owner.getByRole('button', { name: /Remove filter Page/ }).click();
    await owner.waitForFunction(() => document.querySelector('[data-testid="pageviews"] .stat-value')?.textContent === '3');
    expect(new URL(owner.url()).searchParams.has('filter')).toBe(false);
  }, 60_000);

  it('the public share page shows a public site to anyone and nothing of a private one', async () => {
    const anonymous = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const page = await anonymous.newPage();
    await page.goto(`${svc.url}/share/${site}`);
    await page.getByTestId('not-public').waitFor();
    await expect(page.getByTestId('pageviews').count()).resolves.toBe(0);
    await setPublic(site, true);
    await page.goto(`${svc.url}/share/${site}`);
    await page.getByTestId('pageviews').waitFor();
    expect(await shown(page, 'pageviews')).toBe(3);
    await screenshots(page, 'share');
    await anonymous.close();
    await setPublic(site, false);
  }, 60_000);

  it('shows every view, the public share page included, with the CSP enforced and no console error', async () => {
    // No locale set: the page runs with the languages the browser itself gives.
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${new URL(page.url()).pathname}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`${new URL(page.url()).pathname}: ${e.message}`));
    await page.goto(`${svc.url}/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(await loginLink(OWNER));
    await page.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
    await setPublic(site, true);
    try {
      for (const [, path, heading] of [...ownerViews(site), ['share', `/share/${site}`, 'Traffic'] as const]) {
        await openView(page, path, heading);
        await iconsSettled(page);
      }
    } finally {
      await setPublic(site, false);
    }
    await context.close();
    expect(errors).toEqual([]);
  }, 120_000);

  it.each(['light', 'dark'] as const)('every view has no WCAG 2 AA error (HTML_CodeSniffer) in %s mode (the light run captures each at 1280 and 360 px in both schemes)', async (colorScheme) => {
    // The checker is injected as an inline script, which the dashboard's CSP rightly forbids: this context bypasses it.
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', bypassCSP: true, viewport: { width: 1280, height: 900 }, colorScheme });
    // The light run captures both schemes (screenshots switches them); the dark run checks what dark mode shows.
    const shot = (name: string) => (colorScheme === 'light' ? screenshots(page, name) : Promise.resolve());
    const page = await context.newPage();
    // The checker finds what it should: an image without text and a field without a label.
    pages.set('/inaccessible', html('', '<img src="x.png"><input type="text">'));
    await page.goto(`${pageOrigin}/inaccessible`);
    expect((await accessibilityErrors(page)).length).toBeGreaterThanOrEqual(2);
    await page.goto(`${svc.url}/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const found: Record<string, string[]> = { login: await accessibilityErrors(page) };
    await shot('login');
    await page.goto(await loginLink(OWNER));
    await page.getByRole('heading', { name: 'Sites', exact: true }).waitFor();
    await page.getByTestId(`site-${site}`).waitFor();
    for (const [name, path, heading] of ownerViews(site)) {
      await openView(page, path, heading);
      found[name] = await accessibilityErrors(page);
      await shot(name);
    }
    expect(await page.evaluate(() => window.getComputedStyle(document.documentElement).backgroundColor)).toBe(colorScheme === 'dark' ? 'rgb(17, 24, 39)' : 'rgb(243, 244, 246)');
    await context.close();
    expect(found).toEqual({ login: [], sites: [], overview: [], retention: [], imports: [], settings: [] });
  }, 120_000);
});
