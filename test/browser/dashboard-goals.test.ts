/**
 * The dashboard's goals in a real Chromium against the real service, with
 * beacons sent through the collector: goals are added in the Goals tab (a
 * refused one shows the API's reason beside the form), their conversions and
 * rates are the API's, a goal opens the overview of its converted visitors;
 * a funnel draws a bar per step; the overview lists the goals beside its
 * totals with a picker; an event's properties open from the events table.
 * Every view has no WCAG 2 AA error and is captured at 1280 and 360 px.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { accessibilityErrors, ownerPage as signedIn, screenshots, settled } from '../support/dashboard-checks.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

let svc: TestService;
let browser: Browser;
let token: string;
let site: string;

const ua = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.${n}.0 Safari/537.36`;
const beacon = (visitor: number, body: Record<string, unknown>) =>
  svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, ua: ua(visitor), timezone: 'UTC', ...body }), headers: { 'user-agent': ua(visitor) } });

beforeAll(async () => {
  svc = await startTestService();
  token = await svc.token('goal-dash-owner');
  site = await svc.site(token, { prefix: 'dash-goals' });
  await beacon(1, { path: '/', referrer: 'https://www.google.com/' });
  await beacon(1, { path: '/pricing' });
  await beacon(1, { type: 'event', event: 'Sign up', path: '/pricing', metadata: { plan: 'pro' } });
  await beacon(2, { path: '/pricing', referrer: 'https://news.example/' });
  await beacon(2, { path: '/' });
  await beacon(2, { type: 'event', event: 'Sign up', path: '/', metadata: { plan: 'free' } });
  await beacon(3, { path: '/' });
  await svc.until(
    () => svc.req('GET', `/api/sites/${site}/overview/summary`, { token }).then((r) => r.json?.events?.totals?.count as number),
    (n) => n === 2,
  );
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** The owner's page; confirmation dialogs (deletes) are accepted. */
async function ownerPage(options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const page = await signedIn(browser, token, options);
  page.on('dialog', (d) => void d.accept());
  return page;
}

describe('dashboard goals', () => {
  it('adds goals (a refusal shown beside the form), shows the API’s conversions, and a goal opens its converted visitors', async () => {
    const page = await ownerPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.url}/sites/${site}/goals`);
    await page.getByRole('heading', { name: 'Goals', exact: true }).waitFor();
    await settled(page);
    const form = page.getByTestId('goal-form');
    await form.getByLabel('Path').fill('pricing');
    await form.getByRole('button', { name: 'Add goal' }).click();
    await form.getByText('match must be a path starting with / or *').waitFor();
    await form.getByLabel('Path').fill('/pricing*');
    await form.getByRole('button', { name: 'Add goal' }).click();
    await page.getByTestId('goal-stats').getByText('Visit /pricing*').waitFor();
    await form.getByLabel('Type').selectOption('event');
    await form.getByLabel('Event name').fill('Sign up');
    await form.getByLabel('Name (optional)').fill('Signups');
    await form.getByRole('button', { name: 'Add goal' }).click();
    await page.getByTestId('goal-stats').getByText('Signups').waitFor();
    const stats = (await svc.req('GET', `/api/sites/${site}/goals/stats`, { token })).json;
    const signups = stats.goals.find((g: Any) => g.name === 'Signups');
    expect([signups.conversions, signups.visitors, signups.conversion_rate]).toEqual([2, 2, 0.6667]);
    await expect(page.getByTestId('goal-stats').locator('tr', { hasText: 'Signups' }).innerText()).resolves.toMatch(/Signups\s+2\s+2\s+66\.7%/);
    await page.getByTestId('goal-stats').getByRole('button', { name: 'Signups' }).click();
    await page.getByTestId('filter-goal').waitFor();
    // The chip names the goal once the goals list has come (a loaded machine: past poll's default second).
    await expect.poll(() => page.getByTestId('filter-goal').innerText(), { timeout: 10_000 }).toContain('Converted on goal is Signups');
    expect(new URL(page.url()).pathname).toBe(`/sites/${site}`);
    expect(new URL(page.url()).searchParams.get('filter')).toBe(`goal:${signups.id}`);
    await settled(page);
    await expect(page.getByTestId('visitors').locator('.stat-value').innerText()).resolves.toBe('2');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('adds a funnel, draws a bar per step and changes it in place; a refused funnel shows the reason', async () => {
    const page = await ownerPage();
    await page.goto(`${svc.url}/sites/${site}/goals`);
    await page.getByRole('heading', { name: 'Funnels' }).waitFor();
    await settled(page);
    const form = page.getByTestId('funnel-form');
    await form.getByLabel('Funnel name').fill('Signup path');
    await form.locator('#step-0-match').fill('/');
    await form.locator('#step-1-match').fill('/pricing');
    await form.getByRole('button', { name: 'Add step' }).click();
    await form.locator('#step-2-type').selectOption('event');
    await form.locator('#step-2-match').fill('!!!');
    await form.getByRole('button', { name: 'Add funnel' }).click();
    await form.getByText("an event step's match must be an event name with at least one letter or digit").waitFor();
    await form.locator('#step-2-match').fill('Sign up');
    await form.getByRole('button', { name: 'Add funnel' }).click();
    const chart = page.getByTestId('funnel-chart');
    await chart.waitFor();
    const funnel = (await svc.req('GET', `/api/sites/${site}/funnels`, { token })).json.funnels[0];
    const api = (await svc.req('GET', `/api/sites/${site}/funnels/${funnel.id}/stats`, { token })).json;
    expect(api.steps.map((s: Any) => s.visitors)).toEqual([3, 1, 1]);
    await expect(chart.locator('li').allInnerTexts()).resolves.toEqual([
      expect.stringMatching(/1\. Visit \/\s+3 visitors · 100%/),
      expect.stringMatching(/2\. Visit \/pricing\s+1 visitor · 33\.3% · 2 dropped off/),
      expect.stringMatching(/3\. Event Sign_up\s+1 visitor · 33\.3% · 0 dropped off/),
    ]);
    // Changed in place: the form takes the funnel, a save keeps its id.
    await page.getByRole('button', { name: 'Edit', exact: true }).last().click();
    await form.getByLabel('Funnel name').fill('Pricing first');
    await form.locator('#step-0-match').fill('/pricing');
    await form.getByRole('button', { name: 'Remove step 3' }).click();
    await form.getByRole('button', { name: 'Save funnel' }).click();
    await expect.poll(() => page.getByLabel('Funnel', { exact: true }).locator('option:checked').innerText()).toBe('Pricing first');
    const changed = (await svc.req('GET', `/api/sites/${site}/funnels`, { token })).json.funnels;
    expect(changed.map((f: Any) => [f.id, f.name, f.steps.map((x: Any) => x.match)])).toEqual([[funnel.id, 'Pricing first', ['/pricing', '/pricing']]]);
    await page.context().close();
  }, 90_000);

  it('lists the goals beside the overview totals; the picker narrows every panel; an event’s properties open from the events table', async () => {
    const page = await ownerPage();
    await page.goto(`${svc.url}/sites/${site}`);
    await page.getByRole('heading', { name: 'Goals', exact: true }).waitFor();
    await settled(page);
    await page.getByTestId('goal-stats').getByText('Signups').waitFor();
    await page.getByLabel('Visitors', { exact: true }).selectOption({ label: 'Converted on Signups' });
    await page.getByTestId('filter-goal').waitFor();
    await settled(page);
    // Home: visitors 1, 2 and 3; of them 1 and 2 signed up.
    const pages = page.getByTestId('breakdown-pages');
    // Home leads in both: 3 pageviews of 3 visitors, or 2 of 2 tied with /pricing and first by name.
    const home = () => pages.locator('tbody tr').first().innerText();
    await expect.poll(home).toMatch(/^\/\s+2\s+2$/);
    await page.getByTestId('filter-goal').getByRole('button', { name: /^Remove filter/ }).click();
    await settled(page);
    await expect.poll(home).toMatch(/^\/\s+3\s+3$/);
    await page.getByTestId('breakdown-events').getByRole('button', { name: 'Properties: Sign_up' }).click();
    const metadata = page.getByTestId('event-metadata');
    await metadata.getByText('plan').waitFor();
    await metadata.getByRole('button', { name: 'Show values: plan' }).click();
    await metadata.getByText('free').waitFor();
    await expect(metadata.locator('tbody').innerText()).resolves.toMatch(/free\s+1\s+1[\s\S]*pro\s+1\s+1/);
    await page.context().close();
  }, 90_000);

  it('every view has no WCAG 2 AA error and is captured at 1280 and 360 px', async () => {
    const page = await ownerPage({ bypassCSP: true });
    const found: Record<string, string[]> = {};
    await page.goto(`${svc.url}/sites/${site}/goals`);
    await page.getByTestId('funnel-chart').waitFor();
    await settled(page);
    found.goals = await accessibilityErrors(page);
    await screenshots(page, 'goals');
    await page.goto(`${svc.url}/sites/${site}`);
    await page.getByTestId('breakdown-events').getByRole('button', { name: 'Properties: Sign_up' }).click();
    await page.getByTestId('event-metadata').getByText('plan').waitFor();
    await settled(page);
    found['overview-goals'] = await accessibilityErrors(page);
    await screenshots(page, 'overview-goals');
    expect(found).toEqual({ goals: [], 'overview-goals': [] });
    await page.context().close();
  }, 90_000);
});
