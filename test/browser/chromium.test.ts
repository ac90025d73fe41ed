/**
 * Which Chromium the browser tests use, and that the packaged one runs when no
 * system browser is found, with pages seeing what a desktop browser gives them.
 */
import { describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../support/browser.ts';
import { findChromium, SYSTEM_CHROMIUM_PATHS } from '../support/chromium.ts';

// Page-side global read inside page.evaluate (the test tsconfig has no DOM lib).
declare const navigator: { languages: readonly string[] };

const packaged = async () => '/tmp/packaged-chromium';

/** The packaged @sparticuz/chromium, launched as the browser tests launch theirs, with `env` for its process. */
async function launchPackaged(env: NodeJS.ProcessEnv = process.env) {
  const found = await findChromium({ env: { CHROMIUM_SKIP_SYSTEM: '1' } });
  expect(found.source).toBe('@sparticuz/chromium');
  return chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS, env });
}

/** The tags that are not valid BCP 47 language tags (what Intl refuses with a RangeError). */
const invalidTags = (tags: readonly string[]) =>
  tags.filter((tag) => {
    try {
      Intl.getCanonicalLocales(tag);
      return false;
    } catch {
      return true;
    }
  });

describe('findChromium', () => {
  it('takes CHROMIUM_PATH first, even when a system browser exists', async () => {
    const found = await findChromium({ env: { CHROMIUM_PATH: '/opt/my/chrome' }, exists: () => true, packaged });
    expect(found).toEqual({ path: '/opt/my/chrome', source: 'CHROMIUM_PATH' });
  });

  it('refuses a CHROMIUM_PATH that does not exist instead of falling back', async () => {
    await expect(findChromium({ env: { CHROMIUM_PATH: '/nowhere/chrome' }, exists: () => false, packaged })).rejects.toThrow('CHROMIUM_PATH=/nowhere/chrome does not exist');
  });

  it('takes the first system location that exists', async () => {
    const found = await findChromium({ env: {}, exists: (p) => p === '/usr/bin/chromium-browser' || p === '/usr/bin/google-chrome', packaged });
    expect(found).toEqual({ path: '/usr/bin/chromium-browser', source: 'system' });
    expect(SYSTEM_CHROMIUM_PATHS.indexOf('/usr/bin/chromium')).toBe(0);
  });

  it('falls back to the packaged browser when no system browser exists, or when CHROMIUM_SKIP_SYSTEM=1', async () => {
    expect(await findChromium({ env: {}, exists: () => false, packaged })).toEqual({ path: '/tmp/packaged-chromium', source: '@sparticuz/chromium' });
    expect(await findChromium({ env: { CHROMIUM_SKIP_SYSTEM: '1' }, exists: () => true, packaged })).toEqual({ path: '/tmp/packaged-chromium', source: '@sparticuz/chromium' });
  });

  it('launches the packaged @sparticuz/chromium and renders a page', { timeout: 120_000 }, async () => {
    const browser = await launchPackaged();
    try {
      const page = await browser.newPage();
      await page.setContent('<p id="x">rendered</p>');
      expect(await page.textContent('#x')).toBe('rendered');
    } finally {
      await browser.close();
    }
  });

  it('gives pages of the packaged browser valid BCP 47 languages on a machine in the C locale', { timeout: 120_000 }, async () => {
    // CI machines and containers run in the C locale, which the packaged headless build would
    // hand pages as navigator.language "en-US@posix": Intl (and uPlot, in the dashboard) throws on it.
    const browser = await launchPackaged({ ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' });
    try {
      const page = await browser.newPage();
      const languages = await page.evaluate(() => [...navigator.languages]);
      expect(languages.length).toBeGreaterThan(0);
      expect(invalidTags(languages)).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
