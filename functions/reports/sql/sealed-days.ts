/**
 * Day arithmetic of the stores' daily rollups (DuckDB: adapters/duckdb/rollups.ts;
 * ClickHouse: adapters/clickhouse/rollups.ts): the named days of a read, the
 * parts of its range they leave to the rows, the days a batch makes stale,
 * and how a bucket finds its slots and rows. Which days a read names is
 * decided in reports/plan.ts.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import { sqlInteger } from '#domain/sql-literals.ts';
import { bucketAt, bucketExpression, bucketTree, type SqlText } from './text.ts';

/**
 * The traffic rollups' time slot: a quarter hour, the finest step of any time
 * zone's offset, so every local day or hour boundary falls on a slot's start.
 */
export const SLOT_MS = 15 * 60_000;

/** Sealed UTC day numbers first..last inside the scope's range, and those of them found built. */
export interface SealedDays {
  first: number;
  last: number;
  built: readonly number[];
}

/** [start, end) ms ranges of the scope that no named rollup answers: every part of it outside the named days. */
export function rowRanges(scope: { from: number; to: number }, days: SealedDays): [number, number][] {
  const named = new Set(days.built);
  const rest: number[] = [];
  for (let d = Math.floor(scope.from / DAY_MS); d * DAY_MS < scope.to; d++) if (!named.has(d)) rest.push(d);
  return dayRanges(rest, scope);
}

/** The parts of some days (ascending) inside [from, to), as ascending [start, end) ranges, those that meet merged. */
export function dayRanges(days: readonly number[], scope: { from: number; to: number }): [number, number][] {
  const ranges: [number, number][] = [];
  for (const d of days) {
    const [start, end] = [Math.max(d * DAY_MS, scope.from), Math.min((d + 1) * DAY_MS, scope.to)];
    const last = ranges[ranges.length - 1];
    if (start >= end) continue;
    if (last && last[1] === start) last[1] = end;
    else ranges.push([start, end]);
  }
  return ranges;
}

/**
 * A slot row's bucket without a comparison per boundary: per named day (by its place in the
 * range), the bucket holding its start and the slot where the next one starts (96 when none
 * does), as constant lists. Slots before that split lie in a part that starts at the day's start.
 */
export function slotBuckets(sql: SqlText, bounds: readonly number[], days: SealedDays): { bucket: string; fromDayStart: string } {
  const first = new Array<number>(days.last - days.first + 1).fill(0);
  const split = new Array<number>(days.last - days.first + 1).fill(DAY_MS / SLOT_MS);
  for (const day of days.built) {
    const i = day - days.first;
    first[i] = bucketAt(bounds, day * DAY_MS);
    const next = bounds[first[i] + 1] as number;
    if (next < (day + 1) * DAY_MS) split[i] = (next - day * DAY_MS) / SLOT_MS;
  }
  const at = `[day - ${sqlInteger(days.first - 1)}]`;
  const splits = sql.intList(split);
  return {
    bucket: `(${sql.intList(first)}${at} + CASE WHEN slot < ${splits}${at} THEN 0 ELSE 1 END)`,
    fromDayStart: `slot < ${splits}${at}`,
  };
}

/** The bucket of a raw row: a day look-up where the dialect has one, else a comparison tree over only the buckets each raw range touches. */
export function rawBucket(sql: SqlText, bounds: readonly number[], ranges: readonly [number, number][]): string {
  if (ranges.length === 0) return '0';
  if (sql.utcDay) return bucketExpression(sql, bounds);
  const trees = ranges.map(([a, b]) => [b, bucketTree(sql, bounds, bucketAt(bounds, a), bucketAt(bounds, b - 1))] as const);
  return `(CASE ${trees.map(([end, tree]) => `WHEN ts < ${sqlInteger(end)} THEN ${tree}`).join(' ')} END)`;
}
