import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  MAX_RANGE_SECONDS,
  bucketEnd,
  bucketOf,
  bucketStarts,
  forecastFor,
  granularity,
  isValidTimezone,
  localParts,
  parseNumber,
  parseRange,
  parseTimezone,
  previousRange,
  tzOffsetSeconds,
  zonedToUnix,
} from '#domain/reports/time.ts';
import type { Granularity, Range } from '#domain/reports/time.ts';
import { forecastOf, planOverview } from '#domain/reports/overview.ts';
import { parseInterval } from '#domain/reports/query.ts';

/** Unix seconds of an ISO timestamp (all expectations below are written by hand in UTC). */
const u = (iso: string): number => Date.parse(iso) / 1000;
const H = 3600;
const D = 86400;
const hourly = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => from + i * H);
const AMS = 'Europe/Amsterdam';
const NY = 'America/New_York';
const KOL = 'Asia/Kolkata';

describe('parseNumber', () => {
  it.each([
    ['0', 0],
    ['12', 12],
    ['-3', -3],
    ['+4', 4],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['1E-1', 0.1],
    [' 7 ', 7],
  ])('%j → %j', (raw, expected) => expect(parseNumber(raw)).toBe(expected));

  it.each(['', ' ', 'tomorrow', 'NaN', 'Infinity', '-Infinity', '1e400', '0x10', '1,5', '1_000', '--1', '1e', '.', '1 2'])(
    '%j → null',
    (raw) => expect(parseNumber(raw)).toBeNull(),
  );
});

describe('parseRange', () => {
  const now = 1_700_000_000;

  it('defaults to the last 7 days ending now', () => {
    expect(parseRange(undefined, undefined, now)).toEqual({ from: now - 7 * D, to: now });
    expect(parseRange(undefined, undefined, now + 0.9)).toEqual({ from: now - 7 * D, to: now });
  });

  it('defaults the missing bound', () => {
    expect(parseRange('1699000000', undefined, now)).toEqual({ from: 1_699_000_000, to: now });
    expect(parseRange(undefined, '1600000000', now)).toEqual({ from: 1_600_000_000 - 7 * D, to: 1_600_000_000 });
  });

  it('rounds fractions down', () => {
    expect(parseRange('100.9', '200.1', now)).toEqual({ from: 100, to: 200 });
    expect(parseRange('-0.5', '0.5', now)).toEqual({ from: -1, to: 0 });
    expect(parseRange('1e3', '2.5e3', now)).toEqual({ from: 1000, to: 2500 });
  });

  it.each([
    ['tomorrow', '100'],
    ['', '100'],
    ['1', ''],
    ['1e400', '100'],
    ['1', '1e400'],
    ['NaN', '100'],
    ['Infinity', '100'],
    ['-Infinity', '100'],
    ['0x10', '100'],
    ['1', 'now'],
  ])('rejects non-numbers: from=%j to=%j', (from, to) => {
    expect(parseRange(from, to, now)).toBeNull();
  });

  it('requires from < to after rounding', () => {
    expect(parseRange('100', '100', now)).toBeNull();
    expect(parseRange('101', '100', now)).toBeNull();
    expect(parseRange('100.2', '100.9', now)).toBeNull();
    expect(parseRange('100', '101', now)).toEqual({ from: 100, to: 101 });
    // Only `to` given, in the future relative to nothing: default from is still before it.
    expect(parseRange(String(now + 10), undefined, now)).toBeNull();
  });

  it('allows exactly 400 days and no more', () => {
    expect(MAX_RANGE_SECONDS).toBe(400 * 86400);
    expect(parseRange('0', '34560000', now)).toEqual({ from: 0, to: 34_560_000 });
    expect(parseRange('0', '34560001', now)).toBeNull();
    expect(parseRange('1000', String(1000 + 400 * D), now)).toEqual({ from: 1000, to: 1000 + 400 * D });
    expect(parseRange('999', String(1000 + 400 * D), now)).toBeNull();
    // A fraction that rounds down brings the span back within the limit.
    expect(parseRange('0.7', '34560000.9', now)).toEqual({ from: 0, to: 34_560_000 });
  });

  it('rejects finite values outside the representable date range', () => {
    expect(parseRange('9e12', '9.0000001e12', now)).toBeNull();
    expect(parseRange('-9e12', '-8.9999999e12', now)).toBeNull();
  });
});

describe('time zones', () => {
  it.each(['UTC', 'Etc/UTC', 'GMT', 'Europe/Amsterdam', 'America/New_York', 'Asia/Kolkata', 'Asia/Calcutta', 'Etc/GMT+5', 'europe/amsterdam'])(
    '%s is valid',
    (tz) => expect(isValidTimezone(tz)).toBe(true),
  );

  it.each(['', ' ', 'Mars/Olympus', 'Europe/', 'UTC+1', '+05:30', '-05:00', 'utc ', 'Europe/Amsterdam/x', 'local'])(
    '%j is invalid',
    (tz) => expect(isValidTimezone(tz)).toBe(false),
  );

  it('parseTimezone defaults to UTC and fixes casing only', () => {
    expect(parseTimezone(undefined)).toBe('UTC');
    expect(parseTimezone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(parseTimezone('Asia/Calcutta')).toBe('Asia/Calcutta');
    expect(parseTimezone('europe/amsterdam')).toBe('Europe/Amsterdam');
    expect(parseTimezone('utc')).toBe('UTC');
    expect(parseTimezone('Mars/Olympus')).toBeNull();
    expect(parseTimezone('')).toBeNull();
  });

  it('tzOffsetSeconds', () => {
    expect(tzOffsetSeconds('UTC', u('2024-06-01T12:00:00Z'))).toBe(0);
    expect(tzOffsetSeconds(KOL, u('2024-06-01T12:00:00Z'))).toBe(19_800);
    expect(tzOffsetSeconds('Asia/Kathmandu', u('2024-06-01T12:00:00Z'))).toBe(20_700);
    expect(tzOffsetSeconds(AMS, u('2024-01-15T12:00:00Z'))).toBe(3600);
    expect(tzOffsetSeconds(AMS, u('2024-07-15T12:00:00Z'))).toBe(7200);
    expect(tzOffsetSeconds(AMS, u('2024-03-31T01:00:00Z') - 1)).toBe(3600);
    expect(tzOffsetSeconds(AMS, u('2024-03-31T01:00:00Z'))).toBe(7200);
    expect(tzOffsetSeconds(AMS, u('2024-10-27T01:00:00Z') - 1)).toBe(7200);
    expect(tzOffsetSeconds(AMS, u('2024-10-27T01:00:00Z'))).toBe(3600);
    expect(tzOffsetSeconds(NY, u('2024-03-10T07:00:00Z') - 1)).toBe(-18_000);
    expect(tzOffsetSeconds(NY, u('2024-03-10T07:00:00Z'))).toBe(-14_400);
    expect(tzOffsetSeconds(NY, u('2024-11-03T06:00:00Z') - 1)).toBe(-14_400);
    expect(tzOffsetSeconds(NY, u('2024-11-03T06:00:00Z'))).toBe(-18_000);
  });

  it('localParts', () => {
    expect(localParts(KOL, u('2024-06-10T06:10:05Z'))).toEqual({ year: 2024, month: 6, day: 10, hour: 11, minute: 40, second: 5 });
    expect(localParts(NY, u('2024-01-01T04:59:59Z'))).toEqual({ year: 2023, month: 12, day: 31, hour: 23, minute: 59, second: 59 });
    expect(localParts(AMS, u('2024-03-30T23:00:00Z'))).toEqual({ year: 2024, month: 3, day: 31, hour: 0, minute: 0, second: 0 });
    // Fractions round down; midnight is hour 0, never 24.
    expect(localParts('UTC', u('2024-02-29T00:00:00Z') + 0.999)).toEqual({ year: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0 });
    // Years before 100 and before the common era.
    expect(localParts('UTC', u('0050-03-01T10:00:00Z'))).toEqual({ year: 50, month: 3, day: 1, hour: 10, minute: 0, second: 0 });
    expect(localParts('UTC', u('0000-12-31T00:00:00Z')).year).toBe(0);
    expect(localParts('UTC', u('-000001-06-01T00:00:00Z')).year).toBe(-1);
  });

  it('zonedToUnix: plain wall times', () => {
    expect(zonedToUnix('UTC', 2024, 9, 3)).toBe(u('2024-09-03T00:00:00Z'));
    expect(zonedToUnix(KOL, 2024, 6, 10)).toBe(u('2024-06-09T18:30:00Z'));
    expect(zonedToUnix(KOL, 2024, 6, 10, 11, 40, 5)).toBe(u('2024-06-10T06:10:05Z'));
    expect(zonedToUnix(AMS, 2024, 3, 31)).toBe(u('2024-03-30T23:00:00Z'));
    expect(zonedToUnix(AMS, 2024, 4, 1)).toBe(u('2024-03-31T22:00:00Z'));
    expect(zonedToUnix(NY, 2024, 11, 3)).toBe(u('2024-11-03T04:00:00Z'));
    expect(zonedToUnix(NY, 2024, 11, 4)).toBe(u('2024-11-04T05:00:00Z'));
    expect(zonedToUnix('UTC', 50, 1, 1)).toBe(u('0050-01-01T00:00:00Z'));
  });

  it('zonedToUnix: fields roll over', () => {
    expect(zonedToUnix('UTC', 2024, 1, 32)).toBe(u('2024-02-01T00:00:00Z'));
    expect(zonedToUnix('UTC', 2024, 3, 0)).toBe(u('2024-02-29T00:00:00Z'));
    expect(zonedToUnix('UTC', 2024, 13, 1)).toBe(u('2025-01-01T00:00:00Z'));
    expect(zonedToUnix(AMS, 2024, 4, 1 - 2, 12)).toBe(u('2024-03-30T11:00:00Z'));
  });

  it('zonedToUnix: a DST gap moves forward, an ambiguous time takes the first occurrence', () => {
    // Amsterdam spring: 02:00 CET → 03:00 CEST; 02:30 does not exist → 03:30 CEST.
    expect(zonedToUnix(AMS, 2024, 3, 31, 2, 30)).toBe(u('2024-03-31T01:30:00Z'));
    expect(zonedToUnix(AMS, 2024, 3, 31, 2, 0)).toBe(u('2024-03-31T01:00:00Z'));
    expect(zonedToUnix(AMS, 2024, 3, 31, 3, 0)).toBe(u('2024-03-31T01:00:00Z'));
    // Amsterdam autumn: 02:30 happens at 00:30Z (CEST) and 01:30Z (CET).
    expect(zonedToUnix(AMS, 2024, 10, 27, 2, 30)).toBe(u('2024-10-27T00:30:00Z'));
    expect(zonedToUnix(AMS, 2024, 10, 27, 3, 0)).toBe(u('2024-10-27T02:00:00Z'));
    // New York spring: 02:30 → 03:30 EDT; autumn: 01:30 first as EDT.
    expect(zonedToUnix(NY, 2024, 3, 10, 2, 30)).toBe(u('2024-03-10T07:30:00Z'));
    expect(zonedToUnix(NY, 2024, 11, 3, 1, 30)).toBe(u('2024-11-03T05:30:00Z'));
    expect(zonedToUnix(NY, 2024, 11, 3, 0, 59, 59)).toBe(u('2024-11-03T04:59:59Z'));
  });
});

describe('granularity', () => {
  it('is hour up to 48 hours, else day', () => {
    expect(granularity({ from: 0, to: 1 })).toBe('hour');
    expect(granularity({ from: 0, to: 48 * H })).toBe('hour');
    expect(granularity({ from: 0, to: 48 * H + 1 })).toBe('day');
    expect(granularity({ from: 0, to: 7 * D })).toBe('day');
  });
});

describe('bucketStarts', () => {
  it('UTC hours, partial last hour (the example in the brief)', () => {
    const from = u('2024-09-03T06:00:00Z');
    const range = { from, to: from + 12 * H - 600 };
    expect(granularity(range)).toBe('hour');
    expect(bucketStarts(range, 'UTC', 'hour')).toEqual(hourly(from, 12));
  });

  it('UTC days, first day partial', () => {
    const range = { from: u('2024-09-03T06:00:00Z'), to: u('2024-09-06T00:00:00Z') };
    expect(bucketStarts(range, 'UTC', 'day')).toEqual([u('2024-09-03T00:00:00Z'), u('2024-09-04T00:00:00Z'), u('2024-09-05T00:00:00Z')]);
    // One more second reaches into the next day.
    expect(bucketStarts({ ...range, to: range.to + 1 }, 'UTC', 'day')).toHaveLength(4);
  });

  it('a single second gives one bucket', () => {
    const t = u('2024-09-03T06:59:59Z');
    expect(bucketStarts({ from: t, to: t + 1 }, 'UTC', 'hour')).toEqual([u('2024-09-03T06:00:00Z')]);
    expect(bucketStarts({ from: t, to: t + 1 }, KOL, 'day')).toEqual([u('2024-09-02T18:30:00Z')]);
  });

  it('Asia/Kolkata: hours align to local hours (:30 UTC), mid-day start', () => {
    // 11:40 IST to 16:40 IST: buckets 11:00 … 16:00 IST.
    const range = { from: u('2024-06-10T06:10:00Z'), to: u('2024-06-10T11:10:00Z') };
    expect(bucketStarts(range, KOL, 'hour')).toEqual(hourly(u('2024-06-10T05:30:00Z'), 6));
    // Ending exactly on a local hour adds no bucket for it.
    expect(bucketStarts({ ...range, to: u('2024-06-10T10:30:00Z') }, KOL, 'hour')).toEqual(hourly(u('2024-06-10T05:30:00Z'), 5));
    expect(bucketStarts({ ...range, to: u('2024-06-10T10:30:01Z') }, KOL, 'hour')).toEqual(hourly(u('2024-06-10T05:30:00Z'), 6));
  });

  it('Asia/Kolkata: days start at local midnight (18:30 UTC)', () => {
    const range = { from: u('2024-06-10T06:10:00Z'), to: u('2024-06-13T06:10:00Z') };
    expect(bucketStarts(range, KOL, 'day')).toEqual([
      u('2024-06-09T18:30:00Z'),
      u('2024-06-10T18:30:00Z'),
      u('2024-06-11T18:30:00Z'),
      u('2024-06-12T18:30:00Z'),
    ]);
  });

  it('Asia/Kathmandu (+05:45) hours align to :15 UTC', () => {
    const range = { from: u('2024-06-10T06:00:00Z'), to: u('2024-06-10T08:00:00Z') };
    expect(bucketStarts(range, 'Asia/Kathmandu', 'hour')).toEqual(hourly(u('2024-06-10T05:15:00Z'), 3));
  });

  it('Europe/Amsterdam spring day: 23 hour buckets, hour 2 skipped', () => {
    const range = { from: u('2024-03-30T23:00:00Z'), to: u('2024-03-31T22:00:00Z') };
    const starts = bucketStarts(range, AMS, 'hour');
    expect(starts).toEqual(hourly(range.from, 23));
    expect(starts.map((t) => localParts(AMS, t).hour)).toEqual([0, 1, ...Array.from({ length: 21 }, (_, i) => i + 3)]);
    expect(bucketStarts(range, AMS, 'day')).toEqual([range.from]);
  });

  it('Europe/Amsterdam autumn day: 25 hour buckets, hour 2 twice', () => {
    const range = { from: u('2024-10-26T22:00:00Z'), to: u('2024-10-27T23:00:00Z') };
    const starts = bucketStarts(range, AMS, 'hour');
    expect(starts).toEqual(hourly(range.from, 25));
    expect(starts.map((t) => localParts(AMS, t).hour)).toEqual([0, 1, 2, 2, ...Array.from({ length: 21 }, (_, i) => i + 3)]);
    expect(bucketStarts(range, AMS, 'day')).toEqual([range.from]);
  });

  it('America/New_York spring day: 23 hour buckets', () => {
    const range = { from: u('2024-03-10T05:00:00Z'), to: u('2024-03-11T04:00:00Z') };
    const starts = bucketStarts(range, NY, 'hour');
    expect(starts).toEqual(hourly(range.from, 23));
    expect(starts.map((t) => localParts(NY, t).hour).slice(0, 4)).toEqual([0, 1, 3, 4]);
  });

  it('America/New_York autumn day: 25 hour buckets', () => {
    const range = { from: u('2024-11-03T04:00:00Z'), to: u('2024-11-04T05:00:00Z') };
    const starts = bucketStarts(range, NY, 'hour');
    expect(starts).toEqual(hourly(range.from, 25));
    expect(starts.map((t) => localParts(NY, t).hour).slice(0, 4)).toEqual([0, 1, 1, 2]);
  });

  it('day buckets across DST are 23/25 hours long', () => {
    // Amsterdam 2024-03-30 … 2024-04-01 (local), 71 hours.
    const spring = { from: u('2024-03-29T23:00:00Z'), to: u('2024-04-01T22:00:00Z') };
    expect(granularity(spring)).toBe('day');
    expect(bucketStarts(spring, AMS, 'day')).toEqual([u('2024-03-29T23:00:00Z'), u('2024-03-30T23:00:00Z'), u('2024-03-31T22:00:00Z')]);
    // Amsterdam, mid-day 2024-10-26 12:00 CEST to 2024-10-29 11:00 CET.
    const autumn = { from: u('2024-10-26T10:00:00Z'), to: u('2024-10-29T10:00:00Z') };
    expect(bucketStarts(autumn, AMS, 'day')).toEqual([
      u('2024-10-25T22:00:00Z'),
      u('2024-10-26T22:00:00Z'),
      u('2024-10-27T23:00:00Z'),
      u('2024-10-28T23:00:00Z'),
    ]);
    // New York 2024-11-02 … 2024-11-05 (local).
    const ny = { from: u('2024-11-02T04:00:00Z'), to: u('2024-11-05T05:00:00Z') };
    expect(bucketStarts(ny, NY, 'day')).toEqual([u('2024-11-02T04:00:00Z'), u('2024-11-03T04:00:00Z'), u('2024-11-04T05:00:00Z')]);
    const nySpring = { from: u('2024-03-09T05:00:00Z'), to: u('2024-03-12T04:00:00Z') };
    expect(bucketStarts(nySpring, NY, 'day')).toEqual([u('2024-03-09T05:00:00Z'), u('2024-03-10T05:00:00Z'), u('2024-03-11T04:00:00Z')]);
  });

  it('48 hours across the Amsterdam autumn change', () => {
    const range = { from: u('2024-10-26T12:00:00Z'), to: u('2024-10-28T12:00:00Z') };
    expect(granularity(range)).toBe('hour');
    expect(bucketStarts(range, AMS, 'hour')).toEqual(hourly(range.from, 48));
  });

  it('a 400-day range has one bucket per local day', () => {
    const from = u('2024-01-01T05:00:00Z'); // midnight in New York
    const starts = bucketStarts({ from, to: from + 400 * D }, NY, 'day');
    expect(starts).toHaveLength(400);
    expect(starts.every((t) => { const p = localParts(NY, t); return p.hour === 0 && p.minute === 0 && p.second === 0; })).toBe(true);
  });
});

describe('bucketOf / bucketEnd', () => {
  it('maps instants to hour and day starts', () => {
    expect(bucketOf(u('2024-06-10T06:10:05Z'), KOL, 'hour')).toBe(u('2024-06-10T05:30:00Z'));
    expect(bucketOf(u('2024-06-10T05:30:00Z'), KOL, 'hour')).toBe(u('2024-06-10T05:30:00Z'));
    expect(bucketOf(u('2024-06-10T05:29:59Z'), KOL, 'hour')).toBe(u('2024-06-10T04:30:00Z'));
    expect(bucketOf(u('2024-06-10T06:10:05Z'), KOL, 'day')).toBe(u('2024-06-09T18:30:00Z'));
    expect(bucketOf(u('2024-06-10T18:29:59Z'), KOL, 'day')).toBe(u('2024-06-09T18:30:00Z'));
    expect(bucketOf(u('2024-06-10T18:30:00Z'), KOL, 'day')).toBe(u('2024-06-10T18:30:00Z'));
    expect(bucketOf(u('2024-06-10T18:30:00Z') + 0.5, 'UTC', 'hour')).toBe(u('2024-06-10T18:00:00Z'));
  });

  it('the repeated hour of a fall-back night maps to two buckets', () => {
    // Amsterdam 02:15 CEST (00:15Z) and 02:15 CET (01:15Z).
    expect(bucketOf(u('2024-10-27T00:15:00Z'), AMS, 'hour')).toBe(u('2024-10-27T00:00:00Z'));
    expect(bucketOf(u('2024-10-27T01:15:00Z'), AMS, 'hour')).toBe(u('2024-10-27T01:00:00Z'));
    expect(bucketEnd(u('2024-10-27T00:00:00Z'), AMS, 'hour')).toBe(u('2024-10-27T01:00:00Z'));
    expect(bucketOf(u('2024-10-27T01:15:00Z'), AMS, 'day')).toBe(u('2024-10-26T22:00:00Z'));
    expect(bucketEnd(u('2024-10-26T22:00:00Z'), AMS, 'day')).toBe(u('2024-10-27T23:00:00Z'));
    expect(bucketEnd(u('2024-03-30T23:00:00Z'), AMS, 'day')).toBe(u('2024-03-31T22:00:00Z'));
    expect(bucketEnd(u('2024-03-31T00:00:00Z'), AMS, 'hour')).toBe(u('2024-03-31T01:00:00Z'));
  });

  it('bucketEnd of a mid-bucket instant is the next bucket start', () => {
    expect(bucketEnd(u('2024-06-10T06:10:05Z'), KOL, 'hour')).toBe(u('2024-06-10T06:30:00Z'));
    expect(bucketEnd(u('2024-06-10T06:10:05Z'), KOL, 'day')).toBe(u('2024-06-10T18:30:00Z'));
  });

  it('a 30-minute DST shift (Australia/Lord_Howe) starts a bucket at the change', () => {
    // 2024-04-07 02:00 +11 → 01:30 +10:30 at 2024-04-06T15:00Z: buckets 01:00 (+11), 01:30 (+10:30, 30 min), 02:00.
    const tz = 'Australia/Lord_Howe';
    expect(bucketOf(u('2024-04-06T14:59:59Z'), tz, 'hour')).toBe(u('2024-04-06T14:00:00Z'));
    expect(bucketOf(u('2024-04-06T15:15:00Z'), tz, 'hour')).toBe(u('2024-04-06T15:00:00Z'));
    expect(bucketEnd(u('2024-04-06T14:00:00Z'), tz, 'hour')).toBe(u('2024-04-06T15:00:00Z'));
    expect(bucketEnd(u('2024-04-06T15:00:00Z'), tz, 'hour')).toBe(u('2024-04-06T15:30:00Z'));
    const day = { from: zonedToUnix(tz, 2024, 4, 7), to: zonedToUnix(tz, 2024, 4, 8) };
    expect(day.to - day.from).toBe(24.5 * H);
    expect(bucketStarts(day, tz, 'hour')).toHaveLength(25);
  });

  it('day buckets follow each other as the day starts bucketOf finds, in tricky zones (gaps at midnight, a skipped day, 30-minute shifts) and a sample of all', () => {
    const tricky = ['America/Santiago', 'America/Sao_Paulo', 'America/Havana', 'America/Asuncion', 'Asia/Beirut', 'Asia/Tehran', 'Africa/Casablanca', 'Pacific/Apia', 'Australia/Lord_Howe', 'America/St_Johns'];
    const zones = [...tricky, ...Intl.supportedValuesOf('timeZone').filter((_, i) => i % 12 === 0)];
    for (const tz of zones) {
      const starts = bucketStarts({ from: u('2010-01-01T12:00:00Z'), to: u('2012-01-01T12:00:00Z') }, tz, 'day');
      for (let k = 1; k < starts.length; k++) {
        const [before, start] = [starts[k - 1] as number, starts[k] as number];
        expect([tz, bucketOf(start, tz, 'day'), bucketOf(start - 1, tz, 'day')]).toEqual([tz, start, before]);
      }
    }
  });

  it('a skipped calendar day (Pacific/Apia, 2011-12-30) has no bucket', () => {
    const tz = 'Pacific/Apia';
    const starts = bucketStarts({ from: zonedToUnix(tz, 2011, 12, 28), to: zonedToUnix(tz, 2012, 1, 2) }, tz, 'day');
    expect(starts.map((t) => localParts(tz, t).day)).toEqual([28, 29, 31, 1]);
  });
});

describe('previousRange', () => {
  const prev = (from: string, to: string, tz: string): { from: string; to: string } => {
    const p = previousRange({ from: u(from), to: u(to) }, tz);
    return { from: new Date(p.from * 1000).toISOString(), to: new Date(p.to * 1000).toISOString() };
  };

  it('Asia/Kolkata: one local day moves back one day', () => {
    const from = u('2024-06-09T18:30:00Z'); // 2024-06-10 00:00 IST
    expect(previousRange({ from, to: from + D }, KOL)).toEqual({ from: from - D, to: from });
  });

  it('Asia/Kolkata: partial hours keep their clock times', () => {
    expect(prev('2024-06-10T06:10:00Z', '2024-06-10T11:10:00Z', KOL)).toEqual({ from: '2024-06-09T06:10:00.000Z', to: '2024-06-09T11:10:00.000Z' });
    // 23:00 IST to 01:00 IST next day covers two calendar days.
    expect(prev('2024-06-10T17:30:00Z', '2024-06-10T19:30:00Z', KOL)).toEqual({ from: '2024-06-08T17:30:00.000Z', to: '2024-06-08T19:30:00.000Z' });
  });

  it('UTC: a 7-day range moves back 7 days; 24 hours from mid-day cover 2 calendar days', () => {
    expect(prev('2024-09-01T00:00:00Z', '2024-09-08T00:00:00Z', 'UTC')).toEqual({ from: '2024-08-25T00:00:00.000Z', to: '2024-09-01T00:00:00.000Z' });
    expect(prev('2024-09-01T10:00:00Z', '2024-09-02T10:00:00Z', 'UTC')).toEqual({ from: '2024-08-30T10:00:00.000Z', to: '2024-08-31T10:00:00.000Z' });
    expect(prev('2024-03-01T00:00:00Z', '2024-03-02T00:00:00Z', 'UTC')).toEqual({ from: '2024-02-29T00:00:00.000Z', to: '2024-03-01T00:00:00.000Z' });
  });

  it('Europe/Amsterdam spring: the 23-hour day compares with a 24-hour day, the next day with the 23-hour one', () => {
    expect(prev('2024-03-30T23:00:00Z', '2024-03-31T22:00:00Z', AMS)).toEqual({ from: '2024-03-29T23:00:00.000Z', to: '2024-03-30T23:00:00.000Z' });
    expect(prev('2024-03-31T22:00:00Z', '2024-04-01T22:00:00Z', AMS)).toEqual({ from: '2024-03-30T23:00:00.000Z', to: '2024-03-31T22:00:00.000Z' });
  });

  it('Europe/Amsterdam autumn: the 25-hour day compares with a 24-hour day, the next day with the 25-hour one', () => {
    expect(prev('2024-10-26T22:00:00Z', '2024-10-27T23:00:00Z', AMS)).toEqual({ from: '2024-10-25T22:00:00.000Z', to: '2024-10-26T22:00:00.000Z' });
    expect(prev('2024-10-27T23:00:00Z', '2024-10-28T23:00:00Z', AMS)).toEqual({ from: '2024-10-26T22:00:00.000Z', to: '2024-10-27T23:00:00.000Z' });
  });

  it('America/New_York spring and autumn', () => {
    expect(prev('2024-03-10T05:00:00Z', '2024-03-11T04:00:00Z', NY)).toEqual({ from: '2024-03-09T05:00:00.000Z', to: '2024-03-10T05:00:00.000Z' });
    expect(prev('2024-03-11T04:00:00Z', '2024-03-12T04:00:00Z', NY)).toEqual({ from: '2024-03-10T05:00:00.000Z', to: '2024-03-11T04:00:00.000Z' });
    expect(prev('2024-11-03T04:00:00Z', '2024-11-04T05:00:00Z', NY)).toEqual({ from: '2024-11-02T04:00:00.000Z', to: '2024-11-03T04:00:00.000Z' });
    expect(prev('2024-11-04T05:00:00Z', '2024-11-05T05:00:00Z', NY)).toEqual({ from: '2024-11-03T04:00:00.000Z', to: '2024-11-04T05:00:00.000Z' });
    // 7 local days across the spring change (167 hours) → previous 7 days, over the leap day (168 hours).
    expect(prev('2024-03-07T05:00:00Z', '2024-03-14T04:00:00Z', NY)).toEqual({ from: '2024-02-29T05:00:00.000Z', to: '2024-03-07T05:00:00.000Z' });
    // 10:00 to 10:00 next day (23 h) covers two calendar days; the previous pair of days has no change.
    expect(prev('2024-03-09T15:00:00Z', '2024-03-10T14:00:00Z', NY)).toEqual({ from: '2024-03-07T15:00:00.000Z', to: '2024-03-08T15:00:00.000Z' });
  });

  it('wall times that fall into a gap move forward; ambiguous ones take the first occurrence', () => {
    // 2024-04-01 02:30–05:00 CEST → 2024-03-31 02:30 (nonexistent → 03:30 CEST) – 05:00 CEST.
    expect(prev('2024-04-01T00:30:00Z', '2024-04-01T03:00:00Z', AMS)).toEqual({ from: '2024-03-31T01:30:00.000Z', to: '2024-03-31T03:00:00.000Z' });
    // 2024-10-28 02:30–04:00 CET → 2024-10-27 02:30 (first, CEST) – 04:00 CET: 2.5 hours.
    expect(prev('2024-10-28T01:30:00Z', '2024-10-28T03:00:00Z', AMS)).toEqual({ from: '2024-10-27T00:30:00.000Z', to: '2024-10-27T03:00:00.000Z' });
    // New York 2024-11-04 01:30 EST → 2024-11-03 01:30 first occurrence (EDT).
    expect(prev('2024-11-04T06:30:00Z', '2024-11-04T08:00:00Z', NY)).toEqual({ from: '2024-11-03T05:30:00.000Z', to: '2024-11-03T08:00:00.000Z' });
  });

  it('a range inside the repeated hour whose wall clocks fold keeps its length', () => {
    // 02:30 CEST to 02:10 CET on 2024-10-27 (40 minutes): 02:30 → 02:10 the day before is backwards.
    expect(prev('2024-10-27T00:30:00Z', '2024-10-27T01:10:00Z', AMS)).toEqual({ from: '2024-10-26T00:30:00.000Z', to: '2024-10-26T01:10:00.000Z' });
  });
});

describe('forecastFor', () => {
  const observed = { pageviews: 10, visitors: 3 };

  it('scales the observed counts by the elapsed fraction', () => {
    expect(forecastFor(1000, 4600, 1900, observed)).toEqual({ bucket: 1000, pageviews: 40, visitors: 12, basis: 'elapsed', elapsed: 0.25 });
  });

  it('rounds to integers', () => {
    // elapsed 0.4: 3 / 0.4 = 7.5 → 8; 1 / 0.4 = 2.5 → 3; 0 stays 0.
    expect(forecastFor(0, 3600, 1440, { pageviews: 3, visitors: 1 })).toMatchObject({ pageviews: 8, visitors: 3, elapsed: 0.4 });
    expect(forecastFor(0, 3600, 1200, { pageviews: 0, visitors: 0 })).toMatchObject({ pageviews: 0, visitors: 0 });
    expect(forecastFor(0, 3600, 1200, { pageviews: 7, visitors: 2 })).toMatchObject({ pageviews: 21, visitors: 6 });
  });

  it('works for a 23-hour day bucket', () => {
    const start = u('2024-03-30T23:00:00Z');
    const end = u('2024-03-31T22:00:00Z');
    const f = forecastFor(start, end, start + 23 * 1800, { pageviews: 50, visitors: 20 });
    expect(f).toEqual({ bucket: start, pageviews: 100, visitors: 40, basis: 'elapsed', elapsed: 0.5 });
  });

  it('is null unless the bucket contains now and is partial', () => {
    expect(forecastFor(1000, 4600, 1000, observed)).toBeNull(); // nothing elapsed
    expect(forecastFor(1000, 4600, 999, observed)).toBeNull(); // bucket in the future
    expect(forecastFor(1000, 4600, 4600, observed)).toBeNull(); // bucket complete
    expect(forecastFor(1000, 4600, 10_000, observed)).toBeNull();
    expect(forecastFor(1000, 1000, 1000, observed)).toBeNull(); // empty bucket
    expect(forecastFor(1000, 900, 950, observed)).toBeNull();
    expect(forecastFor(1000, 4600, Number.NaN, observed)).toBeNull();
  });

  it('allows a tiny elapsed fraction', () => {
    const f = forecastFor(0, 3600, 1, { pageviews: 1, visitors: 1 });
    expect(f).toEqual({ bucket: 0, pageviews: 3600, visitors: 3600, basis: 'elapsed', elapsed: 1 / 3600 });
  });
});

describe('properties', () => {
  const zones = Intl.supportedValuesOf('timeZone');
  const dstZones = [AMS, NY, KOL, 'UTC', 'Australia/Lord_Howe', 'America/Sao_Paulo', 'America/Havana', 'Asia/Tehran', 'Pacific/Apia', 'Africa/Casablanca', 'America/Santiago', 'Australia/Adelaide', 'Pacific/Chatham', 'Asia/Kathmandu', 'Europe/London'];
  const tzArb = fc.oneof(fc.constantFrom(...zones), fc.constantFrom(...dstZones));
  const start = fc.integer({ min: u('1970-01-01T00:00:00Z'), max: u('2040-01-01T00:00:00Z') });
  const rangeArb = fc.oneof(
    fc.tuple(start, fc.integer({ min: 1, max: 10 * D }), fc.constant<Granularity>('hour')),
    fc.tuple(start, fc.integer({ min: 1, max: MAX_RANGE_SECONDS }), fc.constant<Granularity>('day')),
  );

  const checkBuckets = (range: Range, tz: string, g: Granularity, samples: number[]): void => {
    const starts = bucketStarts(range, tz, g);
    expect(starts.length).toBeGreaterThan(0);
    const first = starts[0]!;
    const last = starts[starts.length - 1]!;
    expect(first).toBeLessThanOrEqual(range.from);
    expect(last).toBeLessThan(range.to);
    expect(bucketEnd(last, tz, g)).toBeGreaterThanOrEqual(range.to);
    for (let i = 1; i < starts.length; i++) {
      expect(starts[i]!).toBeGreaterThan(starts[i - 1]!);
      expect(bucketEnd(starts[i - 1]!, tz, g)).toBe(starts[i]);
    }
    // Hour buckets are at most 2.5 hours (DST shifts), day buckets 22..26 hours except date-line jumps.
    const set = new Set(starts);
    for (const ts of [range.from, range.to - 1, ...samples.map((s) => range.from + Math.floor(s * (range.to - range.from)))]) {
      const b = bucketOf(ts, tz, g);
      expect(set.has(b)).toBe(true);
      expect(b).toBeLessThanOrEqual(ts);
      expect(bucketEnd(b, tz, g)).toBeGreaterThan(ts);
    }
    // Every bucket start maps to itself.
    for (const b of starts.slice(0, 60)) expect(bucketOf(b, tz, g)).toBe(b);
  };

  it('bucketStarts increase strictly, cover [from, to), and bucketOf maps every ts into them', () => {
    fc.assert(
      fc.property(tzArb, rangeArb, fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 20 }), (tz, [from, span, g], samples) => {
        checkBuckets({ from, to: from + span }, tz, g, samples);
      }),
      { numRuns: 200 },
    );
  });

  it('bucket boundaries around DST changes in DST zones', () => {
    const transitions = [u('2024-03-31T01:00:00Z'), u('2024-10-27T01:00:00Z'), u('2024-03-10T07:00:00Z'), u('2024-11-03T06:00:00Z')];
    fc.assert(
      fc.property(
        fc.constantFrom(...dstZones),
        fc.constantFrom(...transitions),
        fc.integer({ min: -3 * D, max: 3 * D }),
        fc.integer({ min: 1, max: 4 * D }),
        fc.constantFrom<Granularity>('hour', 'day'),
        (tz, t, shift, span, g) => {
          checkBuckets({ from: t + shift, to: t + shift + span }, tz, g, [0.1, 0.3, 0.5, 0.7, 0.9]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('zonedToUnix finds an instant showing the wall time of any instant', () => {
    fc.assert(
      fc.property(tzArb, start, (tz, t) => {
        const p = localParts(tz, t);
        const back = zonedToUnix(tz, p.year, p.month, p.day, p.hour, p.minute, p.second);
        expect(localParts(tz, back)).toEqual(p);
        expect(back).toBeLessThanOrEqual(t); // the first occurrence
      }),
      { numRuns: 500 },
    );
  });

  it('previousRange ends no later than the range starts and is non-empty', () => {
    fc.assert(
      fc.property(fc.constantFrom(...dstZones), start, fc.integer({ min: 1, max: MAX_RANGE_SECONDS }), (tz, from, span) => {
        const p = previousRange({ from, to: from + span }, tz);
        expect(p.from).toBeLessThan(p.to);
        expect(p.from).toBeLessThan(from);
        expect(p.to).toBeLessThanOrEqual(from + 2 * H);
      }),
      { numRuns: 300 },
    );
  });
});

describe('week and month buckets (the overview’s interval)', () => {
  const iso = (t: number, tz: string) => new Intl.DateTimeFormat('sv-SE', { timeZone: tz, dateStyle: 'short', timeStyle: 'short' }).format(t * 1000);

  it('start weeks on local Mondays and months on the local 1st, the first bucket partial', () => {
    const tz = 'Europe/Berlin';
    // Wednesday 2026-03-18 12:00 to Wednesday 2026-04-08 12:00, local.
    const range = { from: zonedToUnix(tz, 2026, 3, 18, 12), to: zonedToUnix(tz, 2026, 4, 8, 12) };
    expect(bucketStarts(range, tz, 'week').map((t) => iso(t, tz))).toEqual(['2026-03-16 00:00', '2026-03-23 00:00', '2026-03-30 00:00', '2026-04-06 00:00']);
    expect(bucketStarts(range, tz, 'month').map((t) => iso(t, tz))).toEqual(['2026-03-01 00:00', '2026-04-01 00:00']);
  });

  it('follow the local calendar across a DST change: a week of 167 hours, a month of 743', () => {
    const tz = 'Europe/Berlin';
    const monday = zonedToUnix(tz, 2026, 3, 23);
    expect(bucketEnd(monday, tz, 'week') - monday).toBe(7 * 86_400 - 3_600);
    const march = zonedToUnix(tz, 2026, 3, 1);
    expect(bucketEnd(march, tz, 'month') - march).toBe(31 * 86_400 - 3_600);
    // A Sunday evening belongs to the week of the Monday before.
    expect(iso(bucketOf(zonedToUnix(tz, 2026, 3, 29, 23, 30), tz, 'week'), tz)).toBe('2026-03-23 00:00');
  });

  it('cross the year: ISO week 1 of 2027 starts on Monday 2027-01-04, and December’s month ends at the next year', () => {
    expect(iso(bucketOf(zonedToUnix('UTC', 2027, 1, 3, 10), 'UTC', 'week'), 'UTC')).toBe('2026-12-28 00:00');
    expect(iso(bucketEnd(zonedToUnix('UTC', 2026, 12, 1), 'UTC', 'month'), 'UTC')).toBe('2027-01-01 00:00');
  });

  it('are what the overview plans when asked for, clipped to the range so the series sums to the totals', () => {
    const range = { from: zonedToUnix('UTC', 2026, 1, 7), to: zonedToUnix('UTC', 2026, 3, 10) };
    const plan = planOverview(range, 'UTC', 'month');
    expect([plan.granularity, plan.starts.length]).toEqual(['month', 3]);
    expect([plan.boundaries[0], plan.boundaries.at(-1)]).toEqual([range.from * 1000, range.to * 1000]);
    expect(planOverview(range, 'UTC').granularity).toBe('day');
  });
});

describe('the overview’s interval parameter', () => {
  it('takes day, week or month, and refuses anything else with its text', () => {
    expect([parseInterval(undefined), parseInterval('week'), parseInterval('month')]).toEqual([
      { ok: true, interval: null },
      { ok: true, interval: 'week' },
      { ok: true, interval: 'month' },
    ]);
    for (const bad of ['', 'hour', 'Week', 'year']) expect(parseInterval(bad)).toEqual({ ok: false, error: 'interval must be day, week or month' });
  });
});

describe('the overview’s forecast', () => {
  it('is for the bucket holding now, also when the range reaches past now (today), and none once the range has ended', () => {
    const range = { from: u('2026-03-10T00:00:00Z'), to: u('2026-03-11T00:00:00Z') };
    const plan = planOverview(range, 'UTC');
    const series = plan.starts.map((t) => ({ t, pageviews: t === u('2026-03-10T10:00:00Z') ? 6 : 0, visitors: 0, duration_s: null, scrolled: null }));
    expect(forecastOf(plan, series, 'UTC', u('2026-03-10T10:30:00Z'))).toMatchObject({ bucket: u('2026-03-10T10:00:00Z'), pageviews: 12 });
    expect(forecastOf(plan, series, 'UTC', u('2026-03-12T00:00:00Z'))).toBeNull();
  });
});
