/**
 * The dashboard's API view in a real Chromium against the real service: an
 * API site with requests sent through POST /api/ingest shows the numbers the
 * API reports give; a route row filters the view; a site API key is created
 * (its secret shown once), rotated and revoked; an alert rule is added and
 * its state shown; the sites list draws the API site's requests. Every view
 * has no WCAG 2 AA error and is captured at 1280 and 360 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage as signedIn, screenshots, settled } from '../support/dashboard-checks.ts';


let svc: TestService;
let browser: Browser;
let token: string;
let site: string;

const requests = [
  ...Array.from({ length: 30 }, (_, i) => ({ method: 'GET', route: '/users/{id}', status: 200, duration_ms: 10 + i, bytes_out: 1000, consumer: 'web' })),
  ...Array.from({ length: 8 }, () => ({ method: 'POST', route: '/orders', status: 201, duration_ms: 120, consumer: 'mobile' })),
  ...Array.from({ length: 2 }, () => ({ method: 'POST', route: '/orders', status: 503, duration_ms: 900, consumer: 'mobile' })),
];

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token('api-dash-owner');
  site = await svc.site(token, { prefix: 'dash-api', kind: 'api', verify: false });
  const key = (await svc.req('POST', `/api/sites/${site}/keys`, { token, body: { label: 'seed' } })).json.key;
  expect((await svc.req('POST', '/api/ingest', { token: key, body: { requests } })).status).toBe(202);
  await svc.until(
    () => svc.req('GET', `/api/sites/${site}/api/overview`, { token }).then((r) => r.json.totals.requests as number),
    (n) => n === 40,
  );
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

const ownerPage = (options: { bypassCSP?: boolean } = {}) => signedIn(browser, token, options);
const statText = (page: Page, id: string) => page.getByTestId(id).locator('.stat-value').innerText();

describe('dashboard API view', () => {
  it('shows the totals, latency and tables the API reports give; a route row filters the view', async () => {
    const page = await ownerPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.url}/sites/${site}`);
    await page.getByRole('heading', { name: 'API requests' }).waitFor();
    await settled(page);
    const api = (await svc.req('GET', `/api/sites/${site}/api/overview`, { token })).json;
    expect(await statText(page, 'api-requests')).toBe('40');
    expect(api.totals.requests).toBe(40);
    expect(await statText(page, 'api-error-rate')).toBe('5.00%');
    expect(await statText(page, 'api-p95')).toBe(`${Math.round(api.totals.p95_ms)} ms`);
    await expect(page.getByTestId('api-routes').innerText()).resolves.toMatch(/\/users\/\{id\}\s+30/);
    await page.getByTestId('api-routes').getByRole('button', { name: '/orders', exact: true }).click();
    await expect.poll(() => statText(page, 'api-requests')).toBe('10');
    expect(new URL(page.url()).searchParams.get('afilter')).toBe('route:%2Forders');
    await expect(page.getByTestId('api-statuses').innerText()).resolves.toMatch(/201\s+8/);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('creates a key (secret once), rotates and revokes it', async () => {
    const page = await ownerPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${svc.url}/sites/${site}`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await settled(page);
    await page.getByLabel('Label').fill('ci <b>');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-key').innerText();
    expect(secret).toMatch(/^tt_[0-9a-f]{48}$/);
    expect((await svc.req('POST', '/api/ingest', { token: secret, body: { requests: requests.slice(0, 1) } })).status).toBe(202);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByTestId('new-key').count()).resolves.toBe(0);
    const item = page.getByTestId('site-keys').locator('li', { hasText: 'ci <b>' });
    await item.getByRole('button', { name: 'Rotate' }).click();
    const rotated = await page.getByTestId('new-key').innerText();
    expect(rotated).not.toBe(secret);
    expect((await svc.req('POST', '/api/ingest', { token: secret, body: { requests: requests.slice(0, 1) } })).status).toBe(401);
    await page.getByRole('button', { name: 'Done' }).click();
    await item.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByTestId('site-keys').locator('li', { hasText: 'ci <b>' }).count()).toBe(0);
    expect((await svc.req('POST', '/api/ingest', { token: rotated, body: { requests: requests.slice(0, 1) } })).status).toBe(401);
    await page.context().close();
  }, 60_000);

  it('adds an alert rule and shows its state; a refused rule shows the reason', async () => {
    const page = await ownerPage();
    await page.goto(`${svc.url}/sites/${site}`);
    await page.getByRole('heading', { name: 'Alert rules' }).waitFor();
    await settled(page);
    await page.getByLabel('Name').fill('Errors up');
    await page.getByLabel('Recipients (comma-separated; default: your e-mail)').fill('oncall@example.com');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByTestId('alert-rules').locator('li', { hasText: 'Errors up' }).waitFor();
    await expect(page.getByTestId('alert-rules').innerText()).resolves.toContain('OK');
    await page.getByLabel('Name').fill('Bad');
    await page.getByLabel('Threshold').fill('7');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByText('error_rate threshold must be from 0 to 1').waitFor();
    await page.context().close();
  }, 60_000);

  it('the sites list draws the API site requests per day', async () => {
    const page = await ownerPage();
    await page.goto(svc.url);
    const numbers = page.getByTestId(`api-days-${site}`);
    await numbers.waitFor();
    await expect(numbers.innerText()).resolves.toMatch(/\d+ requests · 2 5xx/);
    await page.context().close();
  }, 60_000);

  it('every view has no WCAG 2 AA error and is captured at 1280 and 360 px', async () => {
    const page = await ownerPage({ bypassCSP: true });
    const found: Record<string, string[]> = {};
    for (const [name, path, heading] of [
      ['api', `/sites/${site}`, 'Alert rules'],
      ['api-sites', '/', 'Your sites'],
    ] as const) {
      await page.goto(svc.url + path);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      await settled(page);
      found[name] = await accessibilityErrors(page);
      await screenshots(page, name);
    }
    expect(found).toEqual({ api: [], 'api-sites': [] });
    await page.context().close();
  }, 90_000);
});
