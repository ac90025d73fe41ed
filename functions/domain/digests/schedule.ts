/**
 * When e-mail digests go out (issue 38): at 07:00 on the wall clock of their
 * time zone, daily every day, weekly on Mondays, monthly on the 1st, each for
 * the period that ended at the midnight before (the previous day, ISO week or
 * month). Wall-clock dates are walked as calendar dates and turned into
 * instants with the zone's rules, so a DST change moves the UTC hour, never
 * the local one.
 */
import { localParts, zonedToUnix } from '../reports/time.ts';

export type DigestFrequency = 'daily' | 'weekly' | 'monthly';
export const DIGEST_FREQUENCIES: readonly DigestFrequency[] = ['daily', 'weekly', 'monthly'];

/** The local hour digests go out at. */
export const SEND_HOUR = 7;

interface CalendarDate {
  y: number;
  m: number;
  d: number;
}

/** The calendar date `days` after a date (negative: before). */
function addDays({ y, m, d }: CalendarDate, days: number): CalendarDate {
  const t = new Date(Date.UTC(y, m - 1, d + days));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

/** ISO weekday, Monday 1 … Sunday 7. */
const weekday = ({ y, m, d }: CalendarDate) => new Date(Date.UTC(y, m - 1, d)).getUTCDay() || 7;

/** Whether a digest of `frequency` goes out on this date. */
const sendsOn = (frequency: DigestFrequency, date: CalendarDate) => frequency === 'daily' || (frequency === 'weekly' ? weekday(date) === 1 : date.d === 1);

const localDate = (tz: string, ms: number): CalendarDate => {
  const p = localParts(tz, Math.floor(ms / 1000));
  return { y: p.year, m: p.month, d: p.day };
};

/** The instant (ms) of a local date's midnight, or of `hour` on it. */
const instantOf = (tz: string, { y, m, d }: CalendarDate, hour = 0) => zonedToUnix(tz, y, m, d, hour) * 1000;

/** The first send time of a digest strictly after `afterMs`: 07:00 local on its next sending date. */
export function nextSendAt(frequency: DigestFrequency, tz: string, afterMs: number): number {
  let date = localDate(tz, afterMs);
  // A month holds a 1st and a week a Monday: 32 dates always reach one at a later 07:00.
  for (let i = 0; i < 33; i++, date = addDays(date, 1)) {
    if (!sendsOn(frequency, date)) continue;
    const at = instantOf(tz, date, SEND_HOUR);
    if (at > afterMs) return at;
  }
  throw new Error('no send time within 33 days');
}

/** The latest send time at or before `nowMs` (the one a late run sends for). */
export function latestSendAt(frequency: DigestFrequency, tz: string, nowMs: number): number {
  let at = nextSendAt(frequency, tz, nowMs - 33 * 86_400_000);
  for (let next = nextSendAt(frequency, tz, at); next <= nowMs; next = nextSendAt(frequency, tz, next)) at = next;
  return at;
}

/**
 * The last complete period of `frequency` before `atMs` in `tz`, as [from, to) ms: the local day,
 * ISO week (Monday to Monday) or month that ended at the latest local midnight of that kind at or
 * before it. A digest sent at 07:00 on a Monday reports the week that ended at that midnight.
 */
export function periodBefore(frequency: DigestFrequency, tz: string, atMs: number): { from: number; to: number } {
  const today = localDate(tz, atMs);
  let end = today;
  let start: CalendarDate;
  if (frequency === 'daily') start = addDays(end, -1);
  else if (frequency === 'weekly') {
    end = addDays(today, 1 - weekday(today));
    start = addDays(end, -7);
  } else {
    end = { y: today.y, m: today.m, d: 1 };
    start = end.m === 1 ? { y: end.y - 1, m: 12, d: 1 } : { y: end.y, m: end.m - 1, d: 1 };
  }
  return { from: instantOf(tz, start), to: instantOf(tz, end) };
}
