/**
 * Port: Search Console data (issue 41) in the event store, one table of
 * daily rows per site registration, dimension and name (DuckDB, ClickHouse;
 * not Timestream). Days are Google's (`YYYY-MM-DD`, Pacific time), ranges
 * are inclusive of both ends. Saving a row again replaces it, so a sync can
 * pull the same days twice.
 */
import type { SiteRef } from './report-store.ts';

export type SearchDim = 'queries' | 'pages' | 'countries' | 'devices';
/** `total` rows (name '') are the day's whole figures: Google leaves anonymized queries out of the query rows. */
export type StoredSearchDim = SearchDim | 'total';

export interface SearchRow {
  date: string;
  dim: StoredSearchDim;
  name: string;
  clicks: number;
  impressions: number;
  /** Google's average position of the row (1 = top). */
  position: number;
}

export interface SearchFigures {
  clicks: number;
  impressions: number;
  /** clicks / impressions; 0 without impressions. */
  ctr: number;
  /** Average position weighted by impressions; null without impressions. */
  position: number | null;
}

export interface SearchDay {
  date: string;
  clicks: number;
  impressions: number;
}

export interface SearchRange extends SiteRef {
  from: string;
  to: string;
}

export interface SearchStatsStore {
  saveSearchRows(ref: SiteRef, rows: readonly SearchRow[]): Promise<void>;
  /** The range's rows of `dim`, most clicks first (then impressions, then name). */
  searchBreakdown(range: SearchRange, dim: SearchDim, limit: number): Promise<(SearchFigures & { name: string })[]>;
  searchTotals(range: SearchRange): Promise<SearchFigures>;
  /** The days of the range that have a total row, oldest first. */
  searchDays(range: SearchRange): Promise<SearchDay[]>;
}
