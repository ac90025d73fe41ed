/**
 * The export's query (issue 42): `series` (events, the default, or api),
 * `format` (csv, the default, or ndjson), `from` and `to` as calendar days
 * YYYY-MM-DD, both included, in `tz` (default UTC). Defaults: `to` today in
 * tz, `from` 29 days before it (30 days). Checked in that order; the first
 * failure is the 400 text.
 */
import { addDays, parseDate } from '#domain/imports/dates.ts';
import { INVALID_RANGE, INVALID_TIMEZONE } from '#domain/reports/query.ts';
import { localDay } from '#domain/reports/overview.ts';
import { dayStart, parseTimezone } from '#domain/reports/time.ts';
import { EXPORT_FORMATS, EXPORT_SERIES, type ExportFormat, type ExportSeries } from './columns.ts';

export const INVALID_SERIES = 'series must be events or api';
export const INVALID_FORMAT = 'format must be csv or ndjson';
/** The texts parseExportQuery answers with, in the order it checks. */
export const EXPORT_QUERY_ERRORS = [INVALID_SERIES, INVALID_FORMAT, INVALID_RANGE, INVALID_TIMEZONE] as const;
export type ExportQueryError = (typeof EXPORT_QUERY_ERRORS)[number];

/** The days of an export when `from` is not given: 30, `to` included. */
export const DEFAULT_EXPORT_DAYS = 30;

export interface ExportQuery {
  series: ExportSeries;
  format: ExportFormat;
  /** The days as given (or defaulted), YYYY-MM-DD, both included. */
  fromDay: string;
  toDay: string;
  tz: string;
  /** Unix milliseconds [from, to): the start of fromDay to the start of the day after toDay, in tz. */
  from: number;
  to: number;
}

const oneOf = <T extends string>(values: readonly T[], raw: string | undefined, fallback: T): T | null =>
  raw === undefined ? fallback : (values as readonly string[]).includes(raw) ? (raw as T) : null;

/** Unix ms of a date's first instant in tz (a date already checked by parseDate). */
function startOf(day: string, tz: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return dayStart(tz, y, m, d) * 1000;
}

export function parseExportQuery(query: Readonly<Record<string, string | undefined>>, now: Date): { ok: true; value: ExportQuery } | { ok: false; error: ExportQueryError } {
  const series = oneOf(EXPORT_SERIES, query.series, 'events');
  if (series === null) return { ok: false, error: INVALID_SERIES };
  const format = oneOf(EXPORT_FORMATS, query.format, 'csv');
  if (format === null) return { ok: false, error: INVALID_FORMAT };
  const tz = parseTimezone(query.tz);
  const toDay = query.to ?? localDay(tz ?? 'UTC', Math.floor(now.getTime() / 1000));
  const fromDay = query.from ?? (parseDate(toDay) === null ? toDay : addDays(toDay, 1 - DEFAULT_EXPORT_DAYS));
  if (parseDate(toDay) === null || parseDate(fromDay) === null || fromDay > toDay) return { ok: false, error: INVALID_RANGE };
  if (tz === null) return { ok: false, error: INVALID_TIMEZONE };
  return { ok: true, value: { series, format, fromDay, toDay, tz, from: startOf(fromDay, tz), to: startOf(addDays(toDay, 1), tz) } };
}
