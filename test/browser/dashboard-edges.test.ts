/**
 * The dashboard around its reports, in a real Chromium against the real local
 * service: the account page (who is signed in, management keys listed, made
 * and revoked), copy buttons (the clipboard, and the selected text when the
 * clipboard is refused), the local-testing snippet, the site switcher, the
 * keyboard shortcuts and their list, and a verified site without data that
 * waits for its first pageview (sent by latest.js through the real collector)
 * and then shows its overview by itself. Each view: no WCAG 2 AA error, and
 * screenshots at 1280 and 360 px in light and dark mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { html, launchChromium, startPageOrigin, USER_AGENT, type PageOrigin } from '../support/browser.ts';
import { PLAIN_PAGE, startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';
import { SHORTCUT_HELP } from '#dashboard/ui/shortcuts.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const window: Any;
declare const document: Any;
declare const navigator: Any;

const OWNER = 'edges-owner';
const ROOT = join(import.meta.dirname, '..', '..');

let svc: TestService;
let token: string;
let browser: Browser;
let pageSites: PageOrigin;
/** Two verified sites with traffic, and one verified without any. */
let site: string;
let other: string;

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token(OWNER);
  pageSites = await startPageOrigin();
  browser = await launchChromium();
  site = await svc.site(token, { prefix: 'edges' });
  other = await svc.site(token, { prefix: 'edges-other' });
  await visit(site, '/pricing');
  await svc.until(
    () => svc.req('GET', `/api/sites/${site}/overview?from=${Math.floor(Date.now() / 1000) - 3600}&to=${Math.floor(Date.now() / 1000) + 3600}`, { token }),
    (r) => r.json?.totals?.pageviews >= 1,
  );
}, 90_000);
afterAll(async () => {
  await browser?.close();
  pageSites?.close();
  await svc?.stop();
});

/** A fresh visitor's pageview of `path` on the page server, sent by latest.js for `hostname` through the collector. */
async function visit(hostname: string, path: string): Promise<void> {
  pageSites.pages.set(path, html(`<script async src="${svc.url}/latest.js" data-hostname="${hostname}"></script>`));
  const context = await browser.newContext({ userAgent: USER_AGENT });
  const page = await context.newPage();
  await page.goto(pageSites.origin + path);
  await page.waitForFunction(() => typeof window.tt_event === 'function');
  await context.close();
}

/** `npm run admin -- <args>` against the running service, as an operator runs it. */
async function admin(...args: string[]): Promise<void> {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/tt.ts', 'admin', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: svc.dataDir, HOST: '127.0.0.1', PORT: new URL(svc.url).port },
  });
}

const setup = async (hostname: string) => (await svc.req('GET', `/api/sites/${hostname}/setup`, { token })).json;
const urlOf = (page: Page) => new URL(page.url());

describe('the account page', () => {
  it('shows who is signed in, makes a key with its scopes, copies it, lists it and revokes it', async () => {
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    await page.goto(`${svc.url}/sites/${site}`);
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Account' }).click();
    await page.waitForURL((url) => url.pathname === '/account');
    const me = (await svc.req('GET', '/api/me', { token })).json;
    await expect(page.getByTestId('me').innerText()).resolves.toContain(me.uid);
    await page.getByLabel("New key's label").fill('deploys');
    await page.getByRole('checkbox', { name: 'manage', exact: true }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-management-key').inputValue();
    await page.getByRole('button', { name: 'Copy the new key' }).click();
    await page.getByRole('button', { name: 'Copy the new key' }).getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    // The key works, with the scopes chosen.
    expect((await svc.req('GET', '/api/me', { token: secret })).json.scopes).toEqual(['read', 'manage']);
    const [made] = (await svc.req('GET', '/api/management-keys', { token })).json.keys;
    expect(made).toMatchObject({ label: 'deploys', scopes: ['read', 'manage'], revoked_at: null });
    await expect(page.getByTestId('keys').innerText()).resolves.toContain('deploys · read, manage');
    await settled(page);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'account');

    await page.getByRole('button', { name: 'Revoke key deploys' }).click();
    await page.getByTestId('keys').getByText(/revoked/).waitFor();
    expect((await svc.req('GET', '/api/management-keys', { token })).json.keys[0].revoked_at).not.toBeNull();
    expect((await svc.req('GET', '/api/me', { token: secret })).status).toBe(401);
    await page.context().close();
  }, 60_000);

  it("a site's settings no longer hold the account's keys", async () => {
    const page = await ownerPage(browser, token);
    await page.goto(`${svc.url}/sites/${site}/settings`);
    await page.getByRole('heading', { name: 'Install and verify' }).waitFor();
    await settled(page);
    await expect(page.getByRole('heading', { name: 'Management keys' }).count()).resolves.toBe(0);
    await page.context().close();
  }, 60_000);
});

describe('snippets', () => {
  it('settings show the snippet and the local-testing snippet, each copied to the clipboard with a message', async () => {
    const page = await ownerPage(browser, token);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    await page.goto(`${svc.url}/sites/${site}/settings`);
    const { snippet, local_snippet } = await setup(site);
    expect(local_snippet).toContain(`data-hostname="${site}"`);
    expect(await page.getByTestId('snippet').inputValue()).toBe(snippet);
    expect(await page.getByTestId('local-snippet').inputValue()).toBe(local_snippet);
    await expect(page.getByTestId('local-snippet-note').innerText()).resolves.toContain('testing');
    for (const [button, text] of [
      ['Copy the snippet', snippet],
      ['Copy the local testing snippet', local_snippet],
    ] as const) {
      await page.getByRole('button', { name: button }).click();
      await page.getByRole('button', { name: button }).getByText('Copied').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);
    }
    await expect(page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).count()).resolves.toBeGreaterThan(0);
    await page.context().close();
  }, 60_000);

  it('a refused clipboard leaves the text selected and says how to copy it', async () => {
    const page = await ownerPage(browser, token);
    await page.addInitScript(() => {
      navigator.clipboard.writeText = () => Promise.reject(new DOMException('refused', 'NotAllowedError'));
    });
    await page.goto(`${svc.url}/sites/${site}/settings`);
    const field = page.getByTestId('snippet');
    await field.waitFor();
    await page.getByRole('button', { name: 'Copy the snippet' }).click();
    await page.getByRole('status').filter({ hasText: 'refused the clipboard' }).waitFor();
    const selected = await field.evaluate((el: Any) => [el.selectionStart, el.selectionEnd, el.value.length, document.activeElement === el]);
    expect(selected).toEqual([0, selected[2], selected[2], true]);
    await expect(page.getByRole('button', { name: 'Copy the snippet' }).innerText()).resolves.toBe('Copy');
    await page.context().close();
  }, 60_000);
});

describe('the site switcher', () => {
  it("opens the same view of another site with the same period, leaving the filters behind", async () => {
    const page = await ownerPage(browser, token);
    await page.goto(`${svc.url}/sites/${site}/retention?period=7d&filter=page%3A%252Fpricing`);
    await page.getByTestId('site-switcher').selectOption(other);
    await page.waitForURL((url) => url.pathname === `/sites/${other}/retention`);
    expect(urlOf(page).search).toBe('?period=7d');
    expect(await page.getByTestId('site-switcher').inputValue()).toBe(other);
    await page.getByRole('heading', { name: 'Engagement retention' }).waitFor();
    await page.context().close();
  }, 60_000);
});

describe('keyboard shortcuts', () => {
  it('period keys, arrows and Escape change the URL, a key with Ctrl does not, and ? lists them', async () => {
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}?filter=page%3A%252Fpricing`);
    await page.getByTestId('pageviews').waitFor();
    const period = () => urlOf(page).searchParams.get('period');
    const pressed = async (key: string, expected: string | null) => {
      await page.keyboard.press(key);
      await page.waitForURL(() => period() === expected);
    };
    for (const [key, expected] of [
      ['w', '7d'],
      ['d', 'today'],
      ['e', 'yesterday'],
      ['m', 'month'],
      ['y', '12mo'],
      ['t', null],
    ] as const) {
      await pressed(key, expected);
    }
    await pressed('d', 'today');
    await pressed('ArrowLeft', 'yesterday');
    await pressed('ArrowLeft', 'custom');
    const dayBefore = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    expect([urlOf(page).searchParams.get('from'), urlOf(page).searchParams.get('to')]).toEqual([dayBefore, dayBefore]);
    await pressed('ArrowRight', 'yesterday');
    await pressed('ArrowRight', 'today');
    // The filter stayed through all of them; with a modifier held a key does nothing.
    expect(urlOf(page).searchParams.get('filter')).toBe('page:%2Fpricing');
    await page.keyboard.press('Control+w');
    expect(period()).toBe('today');

    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    const rows = await dialog.locator('tbody tr').evaluateAll((trs: Any[]) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td: Any) => td.innerText.trim())));
    expect(rows).toEqual(SHORTCUT_HELP.map(([k, what]) => [k, what]));
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'shortcuts');
    // Escape closes the list first, and keeps the filters.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(urlOf(page).searchParams.get('filter')).toBe('page:%2Fpricing');
    await page.keyboard.press('Escape');
    await page.waitForURL((url) => !url.searchParams.has('filter'));
    expect(period()).toBe('today');
    await page.context().close();
  }, 90_000);

  it('keys typed into a field of a report view stay there', async () => {
    const page = await ownerPage(browser, token);
    await page.goto(`${svc.url}/sites/${site}/goals`);
    const name = page.getByLabel('Path').first();
    await name.pressSequentially('/dwy?');
    expect(await name.inputValue()).toBe('/dwy?');
    expect(urlOf(page).search).toBe('');
    await expect(page.getByRole('dialog').count()).resolves.toBe(0);
    await page.context().close();
  }, 60_000);
});

describe('a verified site without data', () => {
  it('waits for the first pageview with the snippet, turns into the overview when one arrives, and then stops asking', async () => {
    const empty = await svc.site(token, { prefix: 'edges-empty' });
    const page = await ownerPage(browser, token, { bypassCSP: true });
    const asked: number[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/api/sites/${empty}/breakdown?dim=pages&limit=1&`)) asked.push(Date.now());
    });
    await page.goto(`${svc.url}/sites/${empty}`);
    await page.getByRole('heading', { name: 'Waiting for the first pageview' }).waitFor();
    expect(await page.getByTestId('snippet').inputValue()).toBe((await setup(empty)).snippet);
    await page.getByRole('button', { name: 'Copy the snippet' }).waitFor();
    await expect(page.getByTestId('pageviews').count()).resolves.toBe(0);
    await settled(page);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'empty-state');

    await visit(empty, '/first');
    await page.getByTestId('pageviews').waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid="pageviews"] .stat-value')?.textContent === '1', undefined, { timeout: 30_000 });
    await expect(page.getByTestId('waiting').count()).resolves.toBe(0);
    const afterData = asked.length;
    await page.waitForTimeout(4_000);
    // Once the site has data, it is not asked again.
    expect(asked.length).toBe(afterData);
    await page.context().close();
  }, 90_000);

  it('shows the overview, not the waiting panel, for a site whose only data are events', async () => {
    const events = await svc.site(token, { prefix: 'edges-events' });
    const sent = await svc.req('POST', '/events', { raw: JSON.stringify({ type: 'event', event: 'server_signup', hostname: events, path: '/' }), headers: { 'user-agent': USER_AGENT } });
    expect(sent.text).toBe('ok');
    const range = `from=${Math.floor(Date.now() / 1000) - 3600}&to=${Math.floor(Date.now() / 1000) + 3600}`;
    await svc.until(() => svc.req('GET', `/api/sites/${events}/breakdown?dim=events&${range}`, { token }), (r) => r.json?.rows?.length === 1);
    const page = await ownerPage(browser, token, { bypassCSP: true });
    // The check's last read: the events breakdown, asked once the pages one is empty.
    const eventsRead = page.waitForResponse((r) => r.url().includes(`/api/sites/${events}/breakdown?dim=events&limit=1&`));
    await page.goto(`${svc.url}/sites/${events}`);
    expect((await eventsRead).status()).toBe(200);
    await page.getByTestId('breakdown-events').getByText('server_signup').waitFor();
    await expect(page.getByTestId('waiting').count()).resolves.toBe(0);
    await page.context().close();
  }, 60_000);

  it('stops asking when the owner leaves the waiting view', async () => {
    const empty = await svc.site(token, { prefix: 'edges-left' });
    const page = await ownerPage(browser, token);
    let asked = 0;
    page.on('request', (r) => {
      if (r.url().includes(`/api/sites/${empty}/breakdown?dim=pages&limit=1&`)) asked++;
    });
    await page.goto(`${svc.url}/sites/${empty}`);
    await page.getByRole('heading', { name: 'Waiting for the first pageview' }).waitFor();
    // It asks again every few seconds while it waits.
    await expect.poll(() => asked, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await page.getByRole('navigation', { name: 'Site views' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Install and verify' }).waitFor();
    const left = asked;
    await page.waitForTimeout(7_000);
    expect(asked).toBe(left);
    await page.context().close();
  }, 60_000);
});

describe('small fixes', () => {
  it('the imports view heads its list "Import history" and its form "Start an import"', async () => {
    const page = await ownerPage(browser, token);
    await page.goto(`${svc.url}/sites/${site}/imports`);
    await page.getByRole('region', { name: 'Import history' }).getByText('No imports yet.').waitFor();
    await page.getByRole('region', { name: 'Start an import' }).getByRole('button', { name: 'Start import' }).waitFor();
    await page.context().close();
  }, 60_000);

  it("a site verified after a failed page check shows it verified, the failure only as the last check's history", async () => {
    const hostname = await svc.site(token, { prefix: 'edges-stale', verify: false });
    svc.setPage(hostname, PLAIN_PAGE);
    const failed = await svc.req('POST', `/api/sites/${hostname}/verify`, { token });
    expect(failed.json.verification.ok).toBe(false);
    await admin('verify-site', hostname);
    const read = await setup(hostname);
    // The API still reads the page as failing: the view must not show that as the site's state.
    expect([read.verified, read.verification.ok, read.last_check.ok]).toEqual([true, false, false]);
    const page = await ownerPage(browser, token);
    await page.goto(`${svc.url}/sites/${hostname}/settings`);
    await page.getByTestId('verification').getByText(/^Verified/).waitFor();
    await expect(page.getByTestId('verification-reason').count()).resolves.toBe(0);
    const history = page.getByTestId('last-check');
    await expect(history.evaluate((d: Any) => d.open)).resolves.toBe(false);
    await history.getByText('Last page check').click();
    await expect(history.innerText()).resolves.toContain(read.last_check.detail);
    await page.context().close();
  }, 60_000);
});
