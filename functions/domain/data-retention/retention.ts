/**
 * Data retention (issue 42): how long a site's rows are kept, where the
 * daily purge cuts, and the day range an owner's erasure names. Pure.
 *
 * The cutoff: on UTC day D, a site keeping N months keeps the rows from
 * 00:00 UTC of the day after D minus N calendar months (the day of the
 * month clamped to the month's last, so 31 May minus 3 months is 28 or
 * 29 February) and removes every row before it. Run daily just after
 * midnight UTC, no row is older than N months by more than the minutes the
 * run takes.
 */
import { DAY_MS } from '#domain/rows/days.ts';

/** What the CNIL's consent exemption allows, and each site's default. */
export const CNIL_MAX_MONTHS = 25;
export const DEFAULT_RETENTION_MONTHS = CNIL_MAX_MONTHS;

export const INVALID_RETENTION = "retention_months must be a whole number of months, from 1 to the service's maximum (25 unless its operator allows more)";

/** A valid retention in months, or null: a whole number from 1 to `maxMonths` (RETENTION_MAX_MONTHS). */
export function parseRetentionMonths(value: unknown, maxMonths: number): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= maxMonths ? value : null;
}

/** The months a site keeps: its own setting, else the default; never past the operator's maximum. */
export function retentionOf(site: { retention_months?: number | null }, maxMonths: number): number {
  return Math.min(site.retention_months ?? DEFAULT_RETENTION_MONTHS, maxMonths);
}

/** The first instant kept (Unix ms, a UTC midnight): rows before it are removed (see the file's comment). */
export function retentionCutoff(now: Date, months: number): number {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay)) + DAY_MS;
}

/** One purge run of a site, kept on the site and shown by GET …/setup. */
export interface PurgeRun {
  /** When it ran (ISO 8601). */
  at: string;
  /** The months it kept and the first instant kept (ISO 8601). */
  retention_months: number;
  cutoff: string;
  /** Rows it removed, all series together. */
  rows_removed: number;
  /** The oldest row left (ISO 8601); null when the site has none. */
  oldest_row_kept: string | null;
}

export const ERASURE_RANGE_ERRORS = [
  'from and to are required, each a day as YYYY-MM-DD',
  'from must not be after to',
] as const;
const [INVALID_DAYS, REVERSED_DAYS] = ERASURE_RANGE_ERRORS;

const isoDay = (text: unknown): number | null => {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? null : ms;
};

/** An erasure's days: from and to (YYYY-MM-DD, UTC, both included) as [from, to) in ms; or the error text. */
export function parseErasureRange(from: unknown, to: unknown): { ok: true; from: number; to: number } | { ok: false; error: string } {
  const first = isoDay(from);
  const last = isoDay(to);
  if (first === null || last === null) return { ok: false, error: INVALID_DAYS };
  if (first > last) return { ok: false, error: REVERSED_DAYS };
  return { ok: true, from: first, to: last + DAY_MS };
}
