/**
 * Port: removing a site's stored rows (issue 42). One primitive for the
 * retention purge and the owner's erasure: the rows of one site registration
 * in a range of whole UTC days, from every series the event store holds.
 * DuckDB and ClickHouse implement it; Timestream (frozen) does not (the
 * routes answer 501 there, docs/decisions.md "Issue 42").
 */
import type { SiteRef } from './report-store.ts';

/** Rows removed, per series (rollups derived from the rows are removed with them and not counted). */
export interface RemovedRows {
  /** Collected and imported event rows (pageviews, events, appends). */
  events: number;
  /** Rows of the API-requests series. */
  api_requests: number;
  /** Search Console rows (a day, dimension and name each). */
  search_console: number;
  /** Crawler-hit rows (an hour, crawler and path each). */
  crawler_hits: number;
}

export const NOTHING_REMOVED: RemovedRows = { events: 0, api_requests: 0, search_console: 0, crawler_hits: 0 };

export interface SiteDataStore {
  /**
   * Removes the rows of `ref` whose time lies in [from, to) (Unix milliseconds, both whole UTC
   * days; a Search Console row's time is its date's start), with every rollup built from them.
   * Reports read afterwards equal those of a store that never held the removed rows, and return
   * at once (no removal is still pending). Idempotent: a second call removes nothing.
   */
  removeSiteData(ref: SiteRef, from: number, to: number): Promise<RemovedRows>;
  /** Every (hostname, registration) holding a row in any series: the purge's list, deleted sites' rows included. */
  storedSites(): Promise<SiteRef[]>;
  /** The time of the site's oldest stored row in any series (Unix milliseconds); null when it has none. */
  oldestRow(ref: SiteRef): Promise<number | null>;
}
