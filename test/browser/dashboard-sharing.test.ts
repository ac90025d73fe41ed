/**
 * Share links, embedding and CSV in the dashboard (issue 40, part 5), in a
 * real Chromium against the real service: the owner makes a link with a label
 * and password in the site's settings (its URL shown once, copied), lists and
 * revokes it, and sets the embedding origins; a reader opens a link of the
 * private site (with and without a password); another origin frames the
 * embed page (the allowed one renders, the others are refused by the CSP);
 * the panels' CSV downloads hold what the panels show. No WCAG 2 AA error;
 * screenshots at 1280 and 360 px in test/artifacts/.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { registrationKey } from '#domain/registration.ts';
import { row } from '../contract/report-store.contract.ts';
import { launchChromium, startPageOrigin, type PageOrigin } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';

// Browser globals in page.evaluate callbacks (the test's own tsconfig has no DOM library).
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const sessionStorage: Record<string, string>;
declare const localStorage: Record<string, string>;

const OWNER = 'share-dash-owner';
let svc: TestService;
let browser: Browser;
let token: string;
let site: string;
let allowed: PageOrigin;
let other: PageOrigin;

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token(OWNER);
  site = await svc.site(token, { prefix: 'dash-share' });
  const yesterday = Math.floor(Date.now() / 1000) - 86_400;
  const registration = registrationKey(OWNER, site);
  const views = [['/', 'a'], ['/pricing', 'a'], ['/', 'b'], ['/docs, "faq"', 'c']] as const;
  await svc.node.runtime.events.saveEvents([
    ...views.map(([path, visitor], i) => ({ ...row(site, yesterday + i * 60, { path, visitor }), registration })),
    { ...row(site, yesterday + 600, { kind: 'event', event: '=cmd|calc', visitor: 'a' }), registration },
  ]);
  browser = await launchChromium();
  [allowed, other] = await Promise.all([startPageOrigin(), startPageOrigin()]);
});
afterAll(async () => {
  allowed?.close();
  other?.close();
  await browser?.close();
  await svc?.stop();
});

/** A reader's page: no sign-in; the checker's inline script needs the policy bypassed. */
async function readerPage(options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 900 }, ...options });
  return context.newPage();
}

async function shareLink(body: Record<string, unknown>) {
  const r = await svc.req('POST', `/api/sites/${site}/shares`, { token, body });
  expect(r.status).toBe(201);
  return r.json as { id: string; slug: string; share_path: string; embed_path: string };
}

/** Clicks a CSV button and reads the file it downloads. */
async function download(page: Page, button: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') };
}

describe('share links in the site’s settings', () => {
  it('are made with a label and password (the URL shown once and copied), listed, and revoked; embedding origins are saved', async () => {
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${svc.url}/sites/${site}/settings`);
    await page.getByRole('heading', { name: 'Share links' }).waitFor();
    await settled(page);
    const form = page.getByTestId('share-form');
    await form.getByLabel('Label').fill('Board');
    await form.getByLabel(/^Password/).fill('short');
    await form.getByRole('button', { name: 'Create share link' }).click();
    await form.getByText('password must be 8 to 200 characters').waitFor();
    await form.getByLabel(/^Password/).fill('board password');
    await form.getByRole('button', { name: 'Create share link' }).click();
    const url = await page.getByTestId('share-url').inputValue();
    expect(url).toMatch(new RegExp(`^${svc.url}/share/link/[A-Za-z0-9_-]{24}$`));
    await page.getByTestId('new-share-link').getByRole('button', { name: 'Copy' }).first().click();
    await page.getByText('Copied.').waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(url);
    const list = page.getByTestId('share-links');
    await expect(list.innerText()).resolves.toMatch(/Board · password · made /);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'share-links');

    await page.getByTestId('embed-origins').fill('http://example.com');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('embed_origins must be a list of at most 10 https origins').waitFor();
    await page.getByTestId('embed-origins').fill('HTTPS://Blog.Example.com/, https://docs.example.com');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('Embedding origins saved.').waitFor();
    expect((await svc.req('GET', `/api/sites/${site}/setup`, { token })).json.embed_origins).toEqual(['https://blog.example.com', 'https://docs.example.com']);

    await list.getByRole('button', { name: 'Revoke Board' }).click();
    await page.getByText('Link revoked.').waitFor();
    expect((await svc.req('GET', `/api/sites/${site}/shares`, { token })).json.shares).toEqual([]);
    const reader = await readerPage();
    await reader.goto(url);
    await reader.getByTestId('not-shared').waitFor();
  }, 90_000);
});

describe('a share link’s page', () => {
  it('shows the private site’s statistics to anyone holding a link without a password, with CSV downloads of the panels and the chart', async () => {
    const link = await shareLink({ label: 'Team' });
    const page = await readerPage({ bypassCSP: true });
    await page.goto(`${svc.url}${link.share_path}`);
    await page.getByText('Shared statistics: Team').waitFor();
    await settled(page);
    await expect(page.getByTestId('pageviews').innerText()).resolves.toMatch(/^Pageviews\s+4/);
    await expect(page.getByTestId('breakdown-pages').innerText()).resolves.toMatch(/\/\s+2\s+2/);
    // Nothing of the owner's: no live panel, goals, outbound links or settings.
    await expect(page.getByRole('heading', { name: 'Live' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link', { name: 'Settings' }).count()).resolves.toBe(0);

    const pages = await download(page, 'Download Top pages as CSV');
    expect(pages.name).toBe(`${site}-top-pages.csv`);
    expect(pages.text).toBe('name,visitors,pageviews\r\n/,2,2\r\n"/docs, ""faq""",1,1\r\n/pricing,1,1\r\n');
    const events = await download(page, 'Download Events as CSV');
    expect(events.text).toBe("name,visitors,events\r\n'=cmd|calc,1,1\r\n");
    const chart = await download(page, "Download the chart's numbers as CSV");
    const lines = chart.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('bucket_start,pageviews,visitors');
    expect(lines.slice(1).every((l) => /^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z,\d+,\d+$/.test(l))).toBe(true);
    expect(lines.slice(1).reduce((n, l) => n + Number(l.split(',')[1]), 0)).toBe(4);

    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'share-link');
  }, 90_000);

  it('asks for the password once: a wrong one is refused beside the form, the right one opens the statistics', async () => {
    const link = await shareLink({ label: 'Investors', password: 'investor pass' });
    const page = await readerPage({ bypassCSP: true });
    await page.goto(`${svc.url}${link.share_path}`);
    const form = page.getByTestId('share-password');
    await form.waitFor();
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'share-link-password');
    await form.getByLabel('Password').fill('not the password');
    await form.getByRole('button', { name: 'Open' }).click();
    await form.getByText('wrong password for this share link').waitFor();
    await form.getByLabel('Password').fill('investor pass');
    await form.getByRole('button', { name: 'Open' }).click();
    await page.getByText('Shared statistics: Investors').waitFor();
    await settled(page);
    await expect(page.getByTestId('pageviews').innerText()).resolves.toMatch(/^Pageviews\s+4/);
    // The grant holds for the tab: a reload reads without asking again, and the password is kept nowhere.
    await page.reload();
    await page.getByText('Shared statistics: Investors').waitFor();
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }));
    expect(stored).not.toContain('investor pass');
  }, 90_000);
});

describe('embedding', () => {
  it('lets an allowed origin frame /embed/{slug} and refuses every other origin by CSP', async () => {
    const link = await shareLink({ label: 'Embed' });
    const frame = (origin: PageOrigin) => {
      origin.pages.set('/', `<!doctype html><html lang="en"><head><title>Host</title></head><body><h1>Host page</h1><iframe title="Statistics" src="${svc.url}${link.embed_path}" style="width: 100%; height: 800px; border: 0"></iframe></body></html>`);
      return `${origin.origin}/`;
    };
    /** What the frame holds once loaded: its text, or null when the browser refused to render it. */
    const framed = async (origin: PageOrigin) => {
      const page = await readerPage();
      const refused: string[] = [];
      page.on('console', (m) => m.text().includes('frame-ancestors') && refused.push(m.text()));
      await page.goto(frame(origin));
      const handle = await page.locator('iframe').elementHandle();
      const content = await handle?.contentFrame();
      const text = await content?.waitForSelector('text=Shared statistics: Embed', { timeout: 3000 }).then(() => 'shown', () => null);
      return { page, text, refused };
    };
    // No origin listed (the site's list was cleared): refused everywhere.
    await svc.req('PATCH', `/api/sites/${site}`, { token, body: { embed_origins: [] } });
    const none = await framed(allowed);
    expect(none.text).toBeNull();
    expect(none.refused.join(' ')).toContain("frame-ancestors 'none'");

    await svc.req('PATCH', `/api/sites/${site}`, { token, body: { embed_origins: [allowed.origin] } });
    const shown = await framed(allowed);
    expect([shown.text, shown.refused]).toEqual(['shown', []]);
    await shown.page.frameLocator('iframe').getByTestId('pageviews').getByText('4').waitFor();
    await screenshots(shown.page, 'share-embed');

    const stranger = await framed(other);
    expect(stranger.text).toBeNull();
    expect(stranger.refused.join(' ')).toContain('frame-ancestors');
  }, 90_000);
});
