/** Which Chromium the browser tests use, and that the packaged one runs when no system browser is found. */
import { describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../support/browser.ts';
import { findChromium, SYSTEM_CHROMIUM_PATHS } from '../support/chromium.ts';

const packaged = async () => '/tmp/packaged-chromium';

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
    const found = await findChromium({ env: { CHROMIUM_SKIP_SYSTEM: '1' } });
    expect(found.source).toBe('@sparticuz/chromium');
    const browser = await chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.setContent('<p id="x">rendered</p>');
      expect(await page.textContent('#x')).toBe('rendered');
    } finally {
      await browser.close();
    }
  });
});
