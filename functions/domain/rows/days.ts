/** Day arithmetic of stored rows: the UTC day a row, a visitor salt or a rollup belongs to. */
import type { EventRow } from './event-row.ts';

export const DAY_MS = 86_400_000;

/** YYYY-MM-DD of a Unix ms time in UTC: the day a visitor salt belongs to. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Ascending day numbers as runs of consecutive days, each at most `longest` long: [first, last] each (a build reads one range per run). */
export function dayRuns(days: readonly number[], longest: number): [number, number][] {
  const runs: [number, number][] = [];
  for (const day of days) {
    const run = runs[runs.length - 1];
    if (run && day === run[1] + 1 && day - run[0] < longest) run[1] = day;
    else runs.push([day, day]);
  }
  return runs;
}

/**
 * The (site, registration, day) triples whose rollups a batch makes stale: each day it touches
 * moved by each of `offsets` (a row changes which rows of its own day and the next are copies;
 * an append changes the engagement of its page, on its day or the one before).
 */
export function touchedDays(rows: readonly EventRow[], offsets: readonly number[]): { sites: string[]; registrations: string[]; days: number[] } {
  const seen = new Set<string>();
  const touched = { sites: [] as string[], registrations: [] as string[], days: [] as number[] };
  for (const r of rows) {
    const day = Math.floor(r.ts / DAY_MS);
    for (const offset of offsets) {
      const d = day + offset;
      const key = `${r.site}\u0000${r.registration}\u0000${d}`;
      if (seen.has(key)) continue;
      seen.add(key);
      touched.sites.push(r.site);
      touched.registrations.push(r.registration);
      touched.days.push(d);
    }
  }
  return touched;
}
