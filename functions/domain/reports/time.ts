/**
 * Report time math (spec part 4 "Reports", DESIGN.md §4): range parsing,
 * IANA time zones through `Intl.DateTimeFormat`, zero-fill buckets, the
 * previous period and the forecast of a partial last bucket.
 *
 * All instants are Unix seconds (integers; inputs are floored). Functions that
 * take a `tz` expect a name accepted by `isValidTimezone` and throw a
 * RangeError otherwise.
 */

export type Range = { from: number; to: number };
export type Granularity = 'hour' | 'day' | 'week' | 'month';
/** The buckets an owner may ask the overview for (`interval`); without one, hours up to 48 h, else days. */
export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface LocalParts {
  year: number;
  /** 1..12 */
  month: number;
  /** 1..31 */
  day: number;
  /** 0..23 */
  hour: number;
  minute: number;
  second: number;
}

export interface Forecast {
  bucket: number;
  pageviews: number;
  visitors: number;
  basis: 'elapsed';
  /** Fraction (0, 1) of the bucket that has elapsed. */
  elapsed: number;
}

const HOUR = 3_600;
const DAY = 86_400;

/** Longest accepted report range: 400 days exactly. */
export const MAX_RANGE_SECONDS = 400 * DAY;
/** `from` defaults to `to` minus this. */
export const DEFAULT_RANGE_SECONDS = 7 * DAY;
/** Ranges at most this long use hourly buckets. */
export const HOURLY_MAX_SECONDS = 48 * HOUR;
/**
 * Largest accepted |timestamp| in seconds. JavaScript dates end at ±8.64e12 s;
 * the margin (about 31 years) keeps every derived instant (previous range,
 * bucket starts before `from`, DST probes a day away) representable.
 */
export const MAX_ABS_TIMESTAMP = 8_639_000_000_000;

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A plain decimal number (optionally signed, fractional or with an exponent;
 * surrounding whitespace ignored), or null for anything else: empty strings,
 * words, `NaN`, `Infinity`, hex, and values that overflow to infinity (`1e400`).
 */
export function parseNumber(raw: string): number | null {
  const s = raw.trim();
  if (!DECIMAL.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/**
 * Report range from the `from`/`to` query values (Unix seconds, fractions
 * rounded down). Defaults: `to` = now, `from` = `to` − 7 days. Null (400
 * `invalid range`) unless both are finite numbers, `from` < `to` and the span
 * is at most 400 days.
 */
export function parseRange(from: string | undefined, to: string | undefined, nowSeconds: number): Range | null {
  let end: number;
  if (to === undefined) {
    end = Math.floor(nowSeconds);
  } else {
    const n = parseNumber(to);
    if (n === null) return null;
    end = Math.floor(n);
  }
  let start: number;
  if (from === undefined) {
    start = end - DEFAULT_RANGE_SECONDS;
  } else {
    const n = parseNumber(from);
    if (n === null) return null;
    start = Math.floor(n);
  }
  if (!Number.isFinite(start) || !Number.isFinite(end)) return null;
  if (Math.abs(start) > MAX_ABS_TIMESTAMP || Math.abs(end) > MAX_ABS_TIMESTAMP) return null;
  if (!(start < end) || end - start > MAX_RANGE_SECONDS) return null;
  return { from: start, to: end };
}

// ---------------------------------------------------------------------------
// Time zones

const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1_000;

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    // Throws RangeError for an unknown zone.
    f = new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
      timeZone: tz,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(tz, f);
  }
  return f;
}

/** Offset strings such as `+05:30` are not IANA names even where Intl accepts them. */
const OFFSET_LIKE = /^[+\-\u2212]/;

/** True for IANA time zone names Intl knows (case-insensitive, aliases included, `UTC` too). */
export function isValidTimezone(tz: string): boolean {
  if (typeof tz !== 'string' || tz === '' || OFFSET_LIKE.test(tz)) return false;
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `tz` query value: `UTC` when absent, null (400 `invalid timezone`) when
 * not a valid IANA name (an empty value is invalid). A valid name is returned
 * as given, except that a wrongly cased name gets Intl's casing
 * (`europe/amsterdam` → `Europe/Amsterdam`).
 */
export function parseTimezone(tz: string | undefined): string | null {
  if (tz === undefined) return 'UTC';
  if (!isValidTimezone(tz)) return null;
  const resolved = formatter(tz).resolvedOptions().timeZone;
  return resolved !== tz && resolved.toLowerCase() === tz.toLowerCase() ? resolved : tz;
}

/** Seconds since the epoch of a wall-clock time read as if it were UTC (proleptic Gregorian, any year). */
function wallSeconds(y: number, m: number, d: number, h = 0, mi = 0, s = 0): number {
  // Date.UTC maps years 0..99 to 1900..1999; shift by one 400-year cycle (146,097 days) instead.
  if (y >= 0 && y < 100) return Date.UTC(y + 400, m - 1, d, h, mi, s) / 1000 - 146_097 * DAY;
  return Date.UTC(y, m - 1, d, h, mi, s) / 1000;
}

/** Day number (days since 1970-01-01) of a calendar date; out-of-range months and days roll over. */
function dayNumber(y: number, m: number, d: number): number {
  return Math.floor(wallSeconds(y, m, d) / DAY);
}

/** The last instant localParts read, and its parts: a day's bucket end reads the instant the next one starts at. */
let lastRead: { tz: string; seconds: number; parts: LocalParts } | null = null;

/** Wall-clock date and time in `tz` at an instant. */
export function localParts(tz: string, unixSeconds: number): LocalParts {
  const seconds = Math.floor(unixSeconds);
  if (lastRead !== null && lastRead.tz === tz && lastRead.seconds === seconds) return { ...lastRead.parts };
  const out = readLocalParts(tz, seconds);
  lastRead = { tz, seconds, parts: { ...out } };
  return out;
}

function readLocalParts(tz: string, seconds: number): LocalParts {
  const parts = formatter(tz).formatToParts(seconds * 1000);
  const out: LocalParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  let beforeChrist = false;
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        out.year = Number(p.value);
        break;
      case 'month':
        out.month = Number(p.value);
        break;
      case 'day':
        out.day = Number(p.value);
        break;
      case 'hour':
        out.hour = Number(p.value);
        break;
      case 'minute':
        out.minute = Number(p.value);
        break;
      case 'second':
        out.second = Number(p.value);
        break;
      case 'era':
        beforeChrist = p.value.startsWith('B');
        break;
      default:
        break;
    }
  }
  if (beforeChrist) out.year = 1 - out.year; // 1 BC is year 0
  return out;
}

/** UTC offset of `tz` at an instant, in seconds (local = UTC + offset; Asia/Kolkata → 19800). */
export function tzOffsetSeconds(tz: string, unixSeconds: number): number {
  const t = Math.floor(unixSeconds);
  const p = localParts(tz, t);
  return wallSeconds(p.year, p.month, p.day, p.hour, p.minute, p.second) - t;
}

/**
 * The instant at which the wall clock in `tz` shows the given date and time.
 * Out-of-range fields roll over (day 32 is the next month's first). A time
 * skipped by a forward transition (DST gap) moves forward by the gap length
 * (02:30 on a spring-forward night in Amsterdam → 03:30 CEST); a time that
 * occurs twice (fall back) gives the first occurrence. Assumes at most one
 * offset change within a day of the wall time.
 */
export function zonedToUnix(tz: string, y: number, m: number, d: number, h = 0, mi = 0, s = 0): number {
  const wall = wallSeconds(y, m, d, h, mi, s);
  const before = tzOffsetSeconds(tz, wall - DAY);
  const after = tzOffsetSeconds(tz, wall + DAY);
  let best: number | null = null;
  for (const offset of before === after ? [before] : [before, after]) {
    const t = wall - offset;
    if (tzOffsetSeconds(tz, t) === offset && (best === null || t < best)) best = t;
  }
  // Nothing shows this wall time: read it with the offset in force before the gap.
  return best ?? wall - before;
}

/**
 * Smallest instant in (lo, hi] from which the offset equals `offset` up to
 * `hi`, given offset(lo) ≠ offset = offset(hi) and one transition in between.
 */
function transitionAfter(tz: string, lo: number, hi: number, offset: number): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (tzOffsetSeconds(tz, mid) === offset) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** First instant whose local date in `tz` is on or after the given date (the start of that day), Unix seconds. */
export function dayStart(tz: string, y: number, m: number, d: number): number {
  const target = dayNumber(y, m, d);
  const s = zonedToUnix(tz, y, m, d);
  const dateAt = (t: number): number => {
    const p = localParts(tz, t);
    return dayNumber(p.year, p.month, p.day);
  };
  if (dateAt(s - 1) < target) return s;
  // Midnight fell into a gap that started before it (e.g. 23:30 → 00:30):
  // the day starts at the transition. Search back for the first instant of the date.
  let lo = s - DAY;
  while (dateAt(lo) >= target) lo -= DAY;
  let hi = s - 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (dateAt(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Start of the local clock hour containing `t`. An offset change also starts
 * a bucket, so the repeated hour of a fall-back night is a bucket of its own.
 */
function hourStart(tz: string, t: number): number {
  const p = localParts(tz, t);
  const offset = wallSeconds(p.year, p.month, p.day, p.hour, p.minute, p.second) - t;
  const nominal = t - (p.minute * 60 + p.second);
  if (tzOffsetSeconds(tz, nominal) === offset) return nominal;
  return transitionAfter(tz, nominal, t, offset);
}

/** `hour` when the range is at most 48 hours long, else `day`. */
export function granularity(range: Range): Granularity {
  return range.to - range.from <= HOURLY_MAX_SECONDS ? 'hour' : 'day';
}

/** Days since the Monday of a calendar date's ISO week (1970-01-01, day 0, was a Thursday). */
const daysSinceMonday = (y: number, m: number, d: number): number => (((dayNumber(y, m, d) + 3) % 7) + 7) % 7;

/**
 * Start of the bucket containing `ts` in `tz`: the local clock hour, the local
 * calendar day, the local Monday of its ISO week, or the local 1st of its month.
 */
export function bucketOf(ts: number, tz: string, g: Granularity): number {
  const t = Math.floor(ts);
  if (g === 'hour') return hourStart(tz, t);
  const p = localParts(tz, t);
  if (g === 'week') return dayStart(tz, p.year, p.month, p.day - daysSinceMonday(p.year, p.month, p.day));
  return dayStart(tz, p.year, p.month, g === 'month' ? 1 : p.day);
}

/** End (exclusive) of the bucket containing `start`: the next bucket's start. */
export function bucketEnd(start: number, tz: string, g: Granularity): number {
  const t = Math.floor(start);
  const p = localParts(tz, t);
  if (g === 'week') return dayStart(tz, p.year, p.month, p.day + 7);
  if (g === 'month') return dayStart(tz, p.year, p.month + 1, 1);
  const offset = wallSeconds(p.year, p.month, p.day, p.hour, p.minute, p.second) - t;
  if (g === 'day') {
    // From a local midnight, the next one is a day later when the offset is the same then (at
    // most one offset change a day, as zonedToUnix assumes): one clock read a day, not six.
    if (p.hour === 0 && p.minute === 0 && p.second === 0 && tzOffsetSeconds(tz, t + DAY) === offset) return t + DAY;
    return dayStart(tz, p.year, p.month, p.day + 1);
  }
  const next = t - (p.minute * 60 + p.second) + HOUR;
  if (tzOffsetSeconds(tz, next) === offset) return next;
  // An offset change before the next full hour starts a new bucket.
  let lo = t;
  let hi = next;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (tzOffsetSeconds(tz, mid) === offset) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Zero-fill bucket starts covering [from, to): from the start of the bucket
 * containing `from` (possibly before `from`: the first bucket can be partial)
 * to the bucket containing `to − 1`. Hour buckets follow the local clock of
 * `tz` (23 or 25 on DST days, aligned to :30 UTC in Asia/Kolkata); day buckets
 * start at local midnight.
 */
export function bucketStarts(range: Range, tz: string, g: Granularity): number[] {
  const out: number[] = [];
  const to = Math.floor(range.to);
  let b = bucketOf(range.from, tz, g);
  while (b < to) {
    out.push(b);
    const next = bucketEnd(b, tz, g);
    // Defensive: never loop on a zone whose history defeats the assumptions above.
    b = next > b ? next : b + (g === 'hour' ? HOUR : DAY);
  }
  return out;
}

/**
 * The comparison period: the same local clock times moved back by as many
 * calendar days (in `tz`) as the range covers, i.e. (local date of `to − 1`) −
 * (local date of `from`) + 1. Each bound keeps its wall-clock time, so across
 * a DST change the previous period can be an hour longer or shorter than the
 * range. Should the moved bounds fold onto each other (a range inside a
 * repeated fall-back hour), the previous range keeps the range's length.
 */
export function previousRange(range: Range, tz: string): Range {
  const a = localParts(tz, range.from);
  const z = localParts(tz, range.to - 1);
  const days = dayNumber(z.year, z.month, z.day) - dayNumber(a.year, a.month, a.day) + 1;
  const b = localParts(tz, range.to);
  const from = zonedToUnix(tz, a.year, a.month, a.day - days, a.hour, a.minute, a.second);
  let to = zonedToUnix(tz, b.year, b.month, b.day - days, b.hour, b.minute, b.second);
  if (to <= from) to = from + (Math.floor(range.to) - Math.floor(range.from));
  return { from, to };
}

/**
 * Forecast for the last bucket when it contains `now` and is partial:
 * observed counts divided by the elapsed fraction, rounded. Null otherwise
 * (now outside [lastBucketStart, bucketEnd), or nothing elapsed yet).
 */
export function forecastFor(
  lastBucketStart: number,
  end: number,
  nowSeconds: number,
  observed: { pageviews: number; visitors: number },
): Forecast | null {
  if (!(end > lastBucketStart) || !(lastBucketStart <= nowSeconds && nowSeconds < end)) return null;
  const elapsed = (nowSeconds - lastBucketStart) / (end - lastBucketStart);
  if (!(elapsed > 0)) return null;
  return {
    bucket: lastBucketStart,
    pageviews: Math.round(observed.pageviews / elapsed),
    visitors: Math.round(observed.visitors / elapsed),
    basis: 'elapsed',
    elapsed,
  };
}
