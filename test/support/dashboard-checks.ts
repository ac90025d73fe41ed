/** What every dashboard browser test checks of a view: WCAG 2 AA errors (HTML_CodeSniffer) and screenshots at 1280 and 360 px in test/artifacts/. */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
declare const window: Any;
declare const document: Any;

const ROOT = join(import.meta.dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test', 'artifacts');
const HTMLCS = readFileSync(join(ROOT, 'node_modules', 'html_codesniffer', 'build', 'HTMLCS.js'), 'utf8');

/** WCAG 2 AA errors HTML_CodeSniffer finds on the page as it is now (warnings and notices are not counted). */
export async function accessibilityErrors(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: HTMLCS });
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        window.HTMLCS.process('WCAG2AA', document, () => {
          const errors = window.HTMLCS.getMessages().filter((m: Any) => m.type === window.HTMLCS.ERROR);
          resolve(errors.map((m: Any) => `${m.code}: ${m.msg} <${m.element?.outerHTML?.slice(0, 120)}>`));
        });
      }),
  );
}

/**
 * The page at 1280 and 360 px in light and dark mode (`dashboard-{name}[-dark]-{width}.png`), left light at
 * 1280 px; each refused when the page is wider than the screen.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}${colorScheme === 'dark' ? '-dark' : ''}-${width}.png`), fullPage: true });
      // Nothing wider than the screen: a phone would scroll the whole page sideways.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 0) throw new Error(`dashboard-${name} at ${width} px is ${overflow} px wider than the screen`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A page of a new context signed in as the owner of `token` (the dashboard's session storage), en-US in UTC at 1280 × 900. */
export async function ownerPage(browser: Browser, token: string, options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width: 1280, height: 900 }, ...options });
  // Frames of the page run it too: a sandboxed one (the digest preview) has no storage to set.
  await context.addInitScript((t: string) => {
    if (window.top === window) window.sessionStorage.setItem('tt.token', JSON.stringify({ token: t, expiresAt: Date.now() + 3_600_000 }));
  }, token);
  return context.newPage();
}

/** Until no panel is loading. */
export const settled = (page: Page) => page.waitForFunction(() => document.querySelectorAll('.loading').length === 0);
