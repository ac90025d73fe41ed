/**
 * Assembles report responses from primitive aggregates: bucket plans in,
 * zero-filled series, totals, previous period and forecast out. Pure.
 */
import { bucketEnd, bucketStarts, forecastFor, granularity, localParts, previousRange, type Forecast, type Granularity, type Interval, type Range } from './time.ts';
import type { TrafficRow } from '#ports/report-store.ts';

export const LIVE_WINDOW_SECONDS = 5 * 60;
export const LIVE_PAGES_WINDOW_SECONDS = 30 * 60;
export const SUMMARY_DAYS = 31;
export const RETENTION_DURATIONS = [5, 10, 30, 60, 120, 300, 600] as const;
export const RETENTION_SCROLLS = [25, 50, 75, 100] as const;

export interface Totals {
  pageviews: number;
  visitors: number;
  avg_duration_s: number | null;
  avg_scroll: number | null;
}

export interface SeriesItem {
  t: number;
  pageviews: number;
  visitors: number;
  duration_s: number | null;
  scrolled: number | null;
}

export interface OverviewPlan {
  range: Range;
  previous: Range;
  granularity: Granularity;
  /** Bucket starts in Unix seconds (the first may precede range.from). */
  starts: number[];
  /** Boundaries in Unix ms for the store: clipped to the range, so the series sums to the totals. */
  boundaries: number[];
}

/** The overview's buckets: `interval` when asked for, else hours up to 48 h and days beyond. */
export function planOverview(range: Range, tz: string, interval: Interval | null = null): OverviewPlan {
  const g = interval ?? granularity(range);
  const starts = bucketStarts(range, tz, g);
  const boundaries = [range.from, ...starts.slice(1), range.to].map((s) => s * 1000);
  return { range, previous: previousRange(range, tz), granularity: g, starts, boundaries };
}

const round = (v: number | null | undefined): number | null => (v === null || v === undefined ? null : Math.round(v));

export function totalsOf(row: TrafficRow | undefined): Totals {
  return { pageviews: row?.pageviews ?? 0, visitors: row?.visitors ?? 0, avg_duration_s: round(row?.duration), avg_scroll: round(row?.scrolled) };
}

/** The whole-range row of a traffic answer. */
export const rangeRow = (rows: readonly TrafficRow[]): TrafficRow | undefined => rows.find((r) => r.bucket === null);

export function zeroFilledSeries(plan: OverviewPlan, rows: readonly TrafficRow[]): SeriesItem[] {
  const byBucket = new Map(rows.filter((r) => r.bucket !== null).map((r) => [r.bucket, r]));
  return plan.starts.map((t, i) => {
    const r = byBucket.get(i);
    return { t, pageviews: r?.pageviews ?? 0, visitors: r?.visitors ?? 0, duration_s: round(r?.duration), scrolled: round(r?.scrolled) };
  });
}

/** The running bucket's forecast: the bucket holding now (the last one, or an earlier one of a range reaching past now, as "today"). */
export function forecastOf(plan: OverviewPlan, series: readonly SeriesItem[], tz: string, nowSeconds: number): Forecast | null {
  const running = series.findLast((p) => p.t <= nowSeconds);
  if (!running) return null;
  return forecastFor(running.t, bucketEnd(running.t, tz, plan.granularity), nowSeconds, running);
}

/** YYYY-MM-DD of a Unix second in tz. */
export function localDay(tz: string, seconds: number): string {
  const p = localParts(tz, seconds);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** Day buckets from the rolling cutoff (the first day partial) to now, as store boundaries in ms. */
export function planSummaryDays(nowSeconds: number, tz: string): { days: string[]; boundaries: number[] } {
  const cutoff = nowSeconds - SUMMARY_DAYS * 86_400;
  const starts = bucketStarts({ from: cutoff, to: nowSeconds + 1 }, tz, 'day');
  return {
    days: starts.map((s) => localDay(tz, Math.max(s, cutoff))),
    boundaries: [cutoff, ...starts.slice(1), nowSeconds + 1].map((s) => s * 1000),
  };
}

export function share(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0;
}
