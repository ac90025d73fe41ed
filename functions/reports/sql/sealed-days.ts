/**
 * Which days of a report's range the stores' daily rollups may answer, for
 * every store that keeps them (DuckDB: adapters/duckdb/rollups.ts;
 * ClickHouse: adapters/clickhouse/rollups.ts): whole UTC days before the
 * ones still open. Today is always open; on DuckDB yesterday too, since
 * every batch of today forgets yesterday's rollups (it may repair the
 * flags of the day before), and rebuilding them after each would cost more
 * than reading the day's rows.
 */
import { DAY_MS } from '#domain/event-flags/flag-index.ts';
import type { EventRow } from '#ports/event-store.ts';

/** Sealed UTC day numbers first..last inside the scope's range, and those of them found built. */
export interface SealedDays {
  first: number;
  last: number;
  built: readonly number[];
}

/** The sealed whole UTC days of [fromMs, toMs) (all but the last `openDays` days up to now), or null when there are none. */
export function sealedDays(fromMs: number, toMs: number, nowMs: number, openDays: number): { first: number; last: number } | null {
  const first = Math.ceil(fromMs / DAY_MS);
  const last = Math.min(Math.floor(toMs / DAY_MS) - 1, Math.floor(nowMs / DAY_MS) - openDays);
  return first <= last ? { first, last } : null;
}

/** [start, end) ms ranges of the scope that no named rollup answers: the partial ends and the days not built. */
export function rowRanges(scope: { from: number; to: number }, days: SealedDays): [number, number][] {
  const built = new Set(days.built);
  const ranges: [number, number][] = [];
  const add = (start: number, end: number) => {
    const last = ranges[ranges.length - 1];
    if (start >= end) return;
    if (last && last[1] === start) last[1] = end;
    else ranges.push([start, end]);
  };
  add(scope.from, days.first * DAY_MS);
  for (let d = days.first; d <= days.last; d++) if (!built.has(d)) add(d * DAY_MS, (d + 1) * DAY_MS);
  add((days.last + 1) * DAY_MS, scope.to);
  return ranges;
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
