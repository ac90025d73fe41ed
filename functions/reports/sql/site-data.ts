/**
 * The series beside the events that a site's removal (ports/site-data.ts)
 * deletes from, in both SQL stores: each series' tables, the first holding
 * its rows (the count answered), the others rollups of them, and the column
 * that places a row in time. The event rows, whose rollups and flags need
 * more, are removed by each event store itself.
 */
import { API_DAYS, API_HOURS, API_TABLE } from '#domain/api-requests/series-sql.ts';
import { CRAWLER_TABLE } from '#domain/crawlers/hits-sql.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { RemovedRows } from '#ports/site-data.ts';
import { SEARCH_TABLE } from './search-console.ts';

export type SideSeries = Exclude<keyof RemovedRows, 'events'>;

export interface SeriesTables {
  tables: readonly [string, ...string[]];
  /** Unix milliseconds, or a `YYYY-MM-DD` date (Search Console). */
  column: string;
  date: boolean;
}

/** The event rows' table (or view), for the oldest row only: each store removes event rows itself. */
export const EVENT_SERIES: SeriesTables = { tables: ['events'], column: 'ts', date: false };

export const SIDE_SERIES: Record<SideSeries, SeriesTables> = {
  api_requests: { tables: [API_TABLE, API_HOURS, API_DAYS], column: 'ts', date: false },
  search_console: { tables: [SEARCH_TABLE], column: 'date', date: true },
  crawler_hits: { tables: [CRAWLER_TABLE], column: 'hour', date: false },
};

/** The rollup tables keep their time in `unit` (an hour's or a day's start). */
const columnOf = (series: SeriesTables, table: string) => (table === API_HOURS || table === API_DAYS ? 'unit' : series.column);

export type Placeholder = (name: 'site' | 'registration' | 'from' | 'to', type: 'String' | 'Int64') => string;

/** The condition on `table` of `series` naming the site's rows in [from, to), parameters written by `p`. */
export function rangeCondition(series: SeriesTables, table: string, p: Placeholder): string {
  const type = series.date ? 'String' : 'Int64';
  const column = columnOf(series, table);
  return `site = ${p('site', 'String')} AND registration = ${p('registration', 'String')} AND ${column} >= ${p('from', type)} AND ${column} < ${p('to', type)}`;
}

/** The parameters of rangeCondition: a date series takes the days as `YYYY-MM-DD`. */
export function rangeParams(series: SeriesTables, site: { site: string; registration: string }, from: number, to: number): Record<string, string | number> {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { site: site.site, registration: site.registration, from: series.date ? day(from) : from, to: series.date ? day(to) : to };
}

/** The oldest row of a series' row table (milliseconds, or a date read as its UTC day's start), as one SELECT. */
export function oldestSelect(series: SeriesTables, table: string, p: Placeholder): string {
  // count first: ClickHouse's min of no rows is 0 or '', not NULL.
  const where = `site = ${p('site', 'String')} AND registration = ${p('registration', 'String')}`;
  return `SELECT CASE WHEN count(*) = 0 THEN NULL ELSE min(${series.column}) END AS oldest FROM ${table} WHERE ${where}`;
}

/** A stored oldest value as milliseconds. */
export function oldestMs(series: SeriesTables, value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  return series.date ? Date.parse(`${String(value)}T00:00:00Z`) : Number(value);
}

/** Throws unless [from, to) is a non-empty range of whole UTC days. */
export function assertWholeDays(from: number, to: number): void {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from % DAY_MS !== 0 || to % DAY_MS !== 0 || from >= to) {
    throw new RangeError(`a removal takes whole UTC days, got [${from}, ${to})`);
  }
}

/** The oldest row over the events and every other series, `read` answering a source's oldestSelect value. */
export async function oldestRowOf(read: (source: SeriesTables) => Promise<unknown>): Promise<number | null> {
  let oldest: number | null = null;
  for (const source of [EVENT_SERIES, ...Object.values(SIDE_SERIES)]) {
    const value = await read(source);
    const ms = oldestMs(source, typeof value === 'bigint' ? Number(value) : value);
    if (ms !== null && (oldest === null || ms < oldest)) oldest = ms;
  }
  return oldest;
}

/** A removal over every series: the event rows first, then each other series, one after another. */
export async function removeEverySeries(events: () => Promise<number>, side: (series: SideSeries) => Promise<number>): Promise<RemovedRows> {
  const removed: RemovedRows = { events: await events(), api_requests: 0, search_console: 0, crawler_hits: 0 };
  for (const series of Object.keys(SIDE_SERIES) as SideSeries[]) removed[series] = await side(series);
  return removed;
}

/** The distinct (site, registration) of every series' rows table, `table` naming each as the store does. */
export function storedSitesSelect(table: (name: string) => string): string {
  return [EVENT_SERIES, ...Object.values(SIDE_SERIES)].map((series) => `SELECT DISTINCT site, registration FROM ${table(series.tables[0])}`).join(' UNION DISTINCT ');
}
