/** Calendar dates (YYYY-MM-DD, UTC) for import ranges and chunks. */
import { DAY_MS } from '#domain/rows/days.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Unix milliseconds of the day's UTC midnight, or null when `value` is not a real YYYY-MM-DD date. */
export function parseDate(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = DATE.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  // Date.UTC rolls 2026-02-30 over into March: a round trip catches it.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return ms;
}

export const formatDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export const addDays = (date: string, days: number): string => formatDate((parseDate(date) as number) + days * DAY_MS);

/** Days from `a` to `b` (b − a), both YYYY-MM-DD. */
export const daysBetween = (a: string, b: string): number => Math.round(((parseDate(b) as number) - (parseDate(a) as number)) / DAY_MS);

export const todayUtc = (now: Date): string => formatDate(now.getTime());

/** The last day of the date's month. */
export function endOfMonth(date: string): string {
  const ms = parseDate(date) as number;
  const d = new Date(ms);
  return formatDate(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0));
}

/** The inclusive date range as Unix milliseconds [from, to): from the first day's midnight to the day after the last. */
export function dateRangeMs(start: string, end: string): { from: number; to: number } {
  return { from: parseDate(start) as number, to: (parseDate(end) as number) + DAY_MS };
}
