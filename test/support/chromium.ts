/**
 * Which Chromium the browser tests drive: `CHROMIUM_PATH`, else the first
 * browser installed in a usual system location, else the Chromium shipped as
 * the `@sparticuz/chromium` dev dependency (Linux x64; a brotli file that
 * `npm ci` installs without scripts and that is unpacked to the temp directory
 * on first use). `CHROMIUM_SKIP_SYSTEM=1` skips the system locations, to prove
 * the packaged browser works.
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

export type ChromiumSource = 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';

export interface FoundChromium {
  path: string;
  source: ChromiumSource;
}

export interface ChromiumLookup {
  env?: NodeJS.ProcessEnv;
  exists?: (path: string) => boolean;
  /** The packaged browser's path (unpacking it on first use). */
  packaged?: () => Promise<string>;
}

async function packagedChromium(): Promise<string> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`no Chromium found: set CHROMIUM_PATH or install Chromium (the packaged @sparticuz/chromium is for Linux x64, not ${process.platform} ${process.arch})`);
  }
  const { default: chromium } = await import('@sparticuz/chromium');
  return oneAtATime(join(tmpdir(), 'chromium.unpacking'), () => chromium.executablePath());
}

/**
 * Runs `fn` holding a directory lock: test files in parallel workers would
 * otherwise unpack the same binary into the same path at once. A lock older
 * than two minutes is taken to be left by a crashed run.
 */
async function oneAtATime<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export async function findChromium({ env = process.env, exists = existsSync, packaged = packagedChromium }: ChromiumLookup = {}): Promise<FoundChromium> {
  if (env.CHROMIUM_PATH) {
    if (!exists(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH} does not exist`);
    return { path: env.CHROMIUM_PATH, source: 'CHROMIUM_PATH' };
  }
  if (env.CHROMIUM_SKIP_SYSTEM !== '1') {
    const system = SYSTEM_CHROMIUM_PATHS.find((path) => exists(path));
    if (system) return { path: system, source: 'system' };
  }
  return { path: await packaged(), source: '@sparticuz/chromium' };
}
