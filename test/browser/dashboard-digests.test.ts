/**
 * E-mail digests in the dashboard, in a real Chromium against the real
 * service: on the sites page the workspace digest is switched on and its
 * preview shows the mail as sent (its numbers those of the last complete
 * day, styled inline, in a frame that runs nothing); a site's settings add an
 * e-mail report (a refusal shown beside the form) and list it. No WCAG 2 AA
 * error; screenshots at 1280 and 360 px in test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { registrationKey } from '#domain/registration.ts';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { row } from '../contract/report-store.contract.ts';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage, screenshots, settled } from '../support/dashboard-checks.ts';

let svc: TestService;
let browser: Browser;
let token: string;
let site: string;

beforeAll(async () => {
  svc = await startTestService();
  token = await mintIdToken(loadIssuerKey(svc.dataDir), 'digest-dash-owner', { email: 'owner@example.com' });
  site = await svc.site(token, { prefix: 'dash-digest' });
  // Yesterday (UTC): 4 pageviews by 3 visitors, the last complete day a daily digest reports.
  const yesterday = Math.floor(Date.now() / 86_400_000) * 86_400 - 86_400 + 3600;
  const registration = registrationKey('digest-dash-owner', site);
  const views = [['/', 'a'], ['/pricing', 'a'], ['/', 'b'], ['/docs', 'c']] as const;
  await svc.node.runtime.events.saveEvents(views.map(([path, visitor], i) => ({ ...row(site, yesterday + i * 60, { path, visitor }), registration })));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('dashboard e-mail digests', () => {
  it('switches the workspace digest on and previews the last complete day as mailed', async () => {
    const page = await ownerPage(browser, token);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(svc.url);
    await page.getByRole('heading', { name: 'E-mail digest' }).waitFor();
    await settled(page);
    const form = page.getByTestId('workspace-digest');
    await form.getByLabel('Send the workspace digest').check();
    await form.getByLabel('Frequency').selectOption('daily');
    await form.getByLabel('Time zone').fill('UTC');
    await form.getByRole('button', { name: 'Save digest' }).click();
    await form.getByText('recipients are required: give them here or in the report defaults').waitFor();
    await form.getByLabel(/^Recipients/).fill('lead@example.com');
    await form.getByRole('button', { name: 'Save digest' }).click();
    await form.getByText('Saved.').waitFor();
    const saved = (await svc.req('GET', '/api/reports/workspace', { token })).json;
    expect(saved).toMatchObject({ enabled: true, frequency: 'daily', tz: 'UTC', recipients: ['lead@example.com'], sites: 'all' });
    await page.getByText(`Next digest:`).waitFor();

    const preview = page.getByTestId('digest-preview');
    await preview.getByText(/Subject: \[tinytrack\] Daily digest: 1 site, /).waitFor();
    const mail = page.frameLocator('iframe[title="Digest preview"]');
    await mail.getByRole('heading', { name: site }).waitFor();
    const figures = mail.locator('table', { hasText: 'Pageviews' }).first();
    await expect(figures.innerText()).resolves.toMatch(/Pageviews\s+4\s+new\s+Visitors\s+3\s+new/);
    await expect(mail.locator('table', { hasText: 'Top pages' }).last().innerText()).resolves.toBeTruthy();
    await expect(mail.locator('body').innerText()).resolves.toMatch(/\/\s+2[\s\S]*\/docs\s+1[\s\S]*\/pricing\s+1/);
    // Styled inline as sent (the page's policy lets style attributes through), and nothing in it runs.
    await expect(mail.locator('h1').evaluate((h) => (globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }).getComputedStyle(h).fontSize)).resolves.toBe('20px');
    await expect(page.locator('iframe[title="Digest preview"]').getAttribute('sandbox')).resolves.toBe('');
    await screenshots(page, 'digest-preview');
    // The mail alone, as the frame shows it.
    const frame = page.locator('iframe[title="Digest preview"]');
    await frame.scrollIntoViewIfNeeded();
    await frame.screenshot({ path: 'test/artifacts/dashboard-digest-mail-1280.png' });
    expect(errors).toEqual([]);
    // The checker is an inline script the page's policy refuses: it runs on a page that bypasses it.
    const checked = await ownerPage(browser, token, { bypassCSP: true });
    await checked.goto(svc.url);
    await checked.getByTestId('digest-preview').getByText(/Subject: /).waitFor();
    await settled(checked);
    expect(await accessibilityErrors(checked)).toEqual([]);
  }, 60_000);

  it('adds an e-mail report in the site’s settings, a refusal beside the form, and lists it with its next send', async () => {
    const page = await ownerPage(browser, token, { bypassCSP: true });
    await page.goto(`${svc.url}/sites/${site}/settings`);
    await page.getByRole('heading', { name: 'E-mail reports' }).waitFor();
    await settled(page);
    const form = page.getByTestId('email-report-form');
    await form.getByLabel(/^Recipients/).fill('not an address');
    await form.getByRole('button', { name: 'Add e-mail report' }).click();
    await form.getByText('recipients must be 1 to 10 e-mail addresses').waitFor();
    await form.getByLabel('Frequency').selectOption('monthly');
    await form.getByLabel(/^Recipients/).fill('');
    await form.getByRole('button', { name: 'Add e-mail report' }).click();
    const list = page.getByTestId('email-reports');
    await list.getByText(/Monthly on the 1st/).waitFor();
    await expect(list.innerText()).resolves.toMatch(/Monthly on the 1st \(the previous month\) \(UTC\) → owner@example\.com · follows the defaults: tz · next /);
    expect(await accessibilityErrors(page)).toEqual([]);
    await screenshots(page, 'email-reports');
  }, 60_000);
});
