import { describe, expect, it } from 'vitest';
import { crawlerHits, HOUR_MS, syncWindow } from '#domain/crawlers/sync-plan.ts';

const T0 = Date.UTC(2026, 2, 2, 10);
const site = { site: 'crawled.example', registration: 'reg-1' };
const GPT = 'Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const GPT_OLD = 'Mozilla/5.0 (compatible; GPTBot/1.1; +https://openai.com/gptbot)';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('syncWindow', () => {
  it('reads the last day on the first sync, up to the end of the current hour', () => {
    expect(syncWindow(null, T0 + 15 * 60_000)).toEqual({ from: T0 - 23 * HOUR_MS, to: T0 + HOUR_MS });
  });
  it('reads again from where the last sync stopped, at most 72 hours back', () => {
    expect(syncWindow(T0 - 2 * HOUR_MS, T0 + 1)).toEqual({ from: T0 - 2 * HOUR_MS, to: T0 + HOUR_MS });
    expect(syncWindow(T0 - 500 * HOUR_MS, T0)).toEqual({ from: T0 - 71 * HOUR_MS, to: T0 + HOUR_MS });
  });
});

describe('crawlerHits', () => {
  it('sums a crawler\'s user agents per hour and path, and leaves humans out', () => {
    expect(
      crawlerHits(site, [
        { hour: T0, userAgent: GPT, path: '/a', count: 3 },
        { hour: T0, userAgent: GPT_OLD, path: '/a', count: 2 },
        { hour: T0, userAgent: GPT, path: '/b', count: 1 },
        { hour: T0 + HOUR_MS, userAgent: GPT, path: '/a', count: 4 },
        { hour: T0, userAgent: CHROME, path: '/a', count: 50 },
      ]),
    ).toEqual([
      { ...site, hour: T0, crawler: 'GPTBot', category: 'ai', path: '/a', hits: 5 },
      { ...site, hour: T0, crawler: 'GPTBot', category: 'ai', path: '/b', hits: 1 },
      { ...site, hour: T0 + HOUR_MS, crawler: 'GPTBot', category: 'ai', path: '/a', hits: 4 },
    ]);
  });
});
