/**
 * The dashboard's budgets (DESIGN.md §6): its JavaScript at most 100 KB
 * gzipped, and an overview rendered within 1 s by a real Chromium against
 * `npm start` holding the reports' 10 million events.
 */
import { gzipSync } from 'node:zlib';
import { buildDashboard } from '#dashboard/build.ts';
import { launchChromium } from '../support/browser.ts';
import { fmt, type BenchRow } from './stats.ts';
import type { Server } from './service.ts';

const JS_BUDGET_BYTES = 100 * 1000;
const RENDER_BUDGET_MS = 1000;
const LOADS = 6;

export async function dashboardSizeBench(): Promise<BenchRow[]> {
  const built = await buildDashboard();
  const css = [...built.files].filter(([path]) => path.endsWith('.css')).reduce((n, [, f]) => n + gzipSync(f.body, { level: 9 }).length, 0);
  return [
    {
      name: 'dashboard JavaScript (Preact, uPlot, the views)',
      value: `${fmt(built.jsGzipBytes)} B gzip (stylesheet ${fmt(css)} B gzip)`,
      budget: '≤ 100 KB gzip',
      ok: built.jsGzipBytes <= JS_BUDGET_BYTES,
    },
  ];
}

// Page-side globals inside page.evaluate (the test tsconfig has no DOM lib).
declare const sessionStorage: { setItem(k: string, v: string): void };
declare const document: { querySelectorAll(s: string): { length: number } };

/**
 * From navigation to the overview of `hostname` (default 30 days) with its totals, chart and every
 * breakdown panel filled: median of the loads after the first, the signed-in owner's token in the tab.
 */
export async function dashboardRenderBench(server: Server, hostname: string, token: string, engine: string): Promise<BenchRow[]> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript((t: string) => sessionStorage.setItem('tt.token', JSON.stringify({ token: t, expiresAt: Date.now() + 3_600_000 })), token);
    const page = await context.newPage();
    const times: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const t = performance.now();
      await page.goto(`${server.url}/sites/${hostname}`);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="pageviews"]').length === 1 && document.querySelectorAll('.loading, [aria-busy="true"]').length === 0, undefined, {
        timeout: 60_000,
      });
      if (i > 0) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] as number;
    return [
      {
        name: `${engine}: dashboard overview rendered (30 days of the largest site, totals, chart and every panel), Chromium`,
        value: `median ${median.toFixed(0)} ms (runs ${times.map((x) => x.toFixed(0)).join(', ')})`,
        budget: `< ${RENDER_BUDGET_MS} ms`,
        ok: median < RENDER_BUDGET_MS,
      },
    ];
  } finally {
    await browser.close();
  }
}
