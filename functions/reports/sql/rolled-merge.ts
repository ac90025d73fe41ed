/**
 * ClickHouse only: the answers of a rolled read's two statements
 * (dialects/clickhouse-rollups.ts RolledPart) put together. Each statement sums its own
 * days; visitor hashes never repeat across UTC days and the two read
 * disjoint days, so their counts add up. A median does not: the engagement
 * parts carry each qualifying total with how many pages have it, and the
 * median is taken here over both, as ClickHouse's quantileExactInclusive(0.5)
 * takes it over the pages (the path without rollups, traffic-engagement.ts).
 */
import type { ResultRow } from './dialect.ts';
import { num } from './text.ts';

/** Rows added up per value of `key`: `sums` added, `maxes` the greatest (NULLs skipped). */
export function sumRows(rows: readonly ResultRow[], key: readonly string[], sums: readonly string[], maxes: readonly string[] = []): ResultRow[] {
  const merged = new Map<string, ResultRow>();
  for (const row of rows) {
    const k = JSON.stringify(key.map((c) => row[c] ?? null));
    const into = merged.get(k);
    if (!into) {
      merged.set(k, { ...row, ...Object.fromEntries(sums.map((c) => [c, num(row[c])])) });
      continue;
    }
    for (const c of sums) into[c] = num(into[c]) + num(row[c]);
    for (const c of maxes) if (row[c] !== null && row[c] !== undefined && (into[c] === null || into[c] === undefined || num(row[c]) > num(into[c]))) into[c] = row[c];
  }
  return [...merged.values()];
}

/** A lists read's rows (`list`, `name`, `value`, `visitors`, `last_seen`) added up over its parts. */
export const listRows = (rows: readonly ResultRow[]) => sumRows(rows, ['list', 'name'], ['value', 'visitors'], ['last_seen']);

/** A bucket's engagement so far: each qualifying total with its count of pages, and the scrolls. */
interface EngagementSoFar {
  site: unknown;
  bucket: number | null;
  totals: Map<number, number>;
  scrolls: number;
  scrolled: number;
}

/**
 * The middle of `values` (value → how many) as quantileExactInclusive(0.5) interpolates it: the
 * middle one, or the lower middle plus half the step to the upper, computed as ClickHouse does.
 */
export function medianOfCounts(values: ReadonlyMap<number, number>): number | null {
  const n = [...values.values()].reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  const h = 0.5 * (n - 1) + 1;
  const k = Math.floor(h);
  const sorted = [...values.entries()].sort((a, b) => a[0] - b[0]);
  // The value at 0-based place i of the sorted multiset.
  const at = (i: number) => {
    let seen = 0;
    for (const [value, count] of sorted) {
      seen += count;
      if (i < seen) return value;
    }
    return sorted[sorted.length - 1]![0];
  };
  if (k >= n) return at(n - 1);
  const lower = at(k - 1);
  return lower + (h - k) * (at(k) - lower);
}

/**
 * The traffic engagement rows (traffic.ts: site, bucket, duration, scrolled) from the parts'
 * rows (site, bucket, totals as [total, pages] pairs, scrolls, scrolled): per site and bucket,
 * and per site over the range (bucket null).
 */
export function engagementOfParts(rows: readonly ResultRow[]): ResultRow[] {
  const per = new Map<string, EngagementSoFar>();
  const add = (site: unknown, bucket: number | null, row: ResultRow) => {
    const k = `${String(site)}\n${bucket ?? ''}`;
    let into = per.get(k);
    if (!into) per.set(k, (into = { site, bucket, totals: new Map(), scrolls: 0, scrolled: 0 }));
    for (const [total, pages] of (row.totals ?? []) as [unknown, unknown][]) into.totals.set(num(total), (into.totals.get(num(total)) ?? 0) + num(pages));
    into.scrolls += num(row.scrolls);
    into.scrolled += num(row.scrolled);
  };
  for (const row of rows) {
    add(row.site, num(row.bucket), row);
    add(row.site, null, row);
  }
  return [...per.values()].map((e) => ({
    site: e.site,
    bucket: e.bucket,
    duration: medianOfCounts(e.totals),
    scrolled: e.scrolled === 0 ? null : e.scrolls / e.scrolled,
  }));
}
