/** Numbers, durations, shares and times in the browser's locale. */
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0 });
const rate = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const signedPercent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 0, signDisplay: 'exceptZero' });

/** From a million on, counts read compact ("1.2M"); below, in full with grouping ("28,106"). */
export const COMPACT_FROM = 1_000_000;
/**
 * The one format of counts across the dashboard (stats, panels, lists): full with grouping below
 * COMPACT_FROM, compact with one decimal from there (a panel's column stays narrow on a phone).
 */
export const formatNumber = (n: number) => (Math.abs(n) < COMPACT_FROM ? integer.format(n) : compact.format(n));
export const formatShare = (fraction: number) => percent.format(fraction);
/** `part` of `whole` with one decimal ("12.4%"); null when the whole is 0 (no share of nothing). */
export const formatPercentOf = (part: number, whole: number): string | null => (whole > 0 ? rate.format(part / whole) : null);
/** A conversion rate: one decimal, as small rates are the ones compared. */
export const formatRate = (fraction: number) => rate.format(fraction);

/** Seconds as "1m 05s", "45s"; null as an em dash. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** The change from `previous` to `current` as a signed percentage; null when there was nothing before. */
export function formatChange(current: number | null, previous: number | null): string | null {
  if (current === null || previous === null || previous === 0) return null;
  return signedPercent.format((current - previous) / previous);
}

/** A bucket start (Unix seconds) as the chart's axis and tooltips show it, in `tz`. */
export function formatBucket(t: number, tz: string, granularity: string): string {
  const options: Intl.DateTimeFormatOptions =
    granularity === 'hour'
      ? { timeZone: tz, hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short' }
      : granularity === 'month'
        ? { timeZone: tz, month: 'short', year: 'numeric' }
        : { timeZone: tz, day: 'numeric', month: 'short', year: 'numeric' };
  return new Intl.DateTimeFormat(undefined, options).format(t * 1000);
}

export const formatTimestamp = (iso: string) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
