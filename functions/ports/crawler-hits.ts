/**
 * Port: crawler hits read from a CDN zone (issue 41), hourly counts in the
 * event store's own table (DuckDB, ClickHouse; not Timestream). A row is
 * keyed by (site, registration, hour, crawler, path): saving a key again
 * replaces its hits, so a sync may read an hour again as often as it likes.
 * Times are Unix milliseconds; ranges are [from, to) over the hour's start.
 */
import type { CrawlerCategory } from '#domain/crawlers/known-crawlers.ts';
import type { SiteRef } from './report-store.ts';

export interface CrawlerHitRow extends SiteRef {
  /** The hour's start (a whole UTC hour). */
  hour: number;
  crawler: string;
  category: CrawlerCategory;
  path: string;
  hits: number;
}

export type CrawlerDim = 'crawlers' | 'pages' | 'categories';

export interface CrawlerScope extends SiteRef {
  from: number;
  to: number;
}

export interface CrawlerRow {
  /** The crawler's name, the page's path, or the category. */
  name: string;
  /** The crawler's or category's own; for a page, the category with the most hits on it. */
  category: CrawlerCategory;
  hits: number;
  /** Distinct paths crawled (1 for a page). */
  pages: number;
}

export interface CrawlerHour {
  hour: number;
  category: CrawlerCategory;
  hits: number;
}

export interface CrawlerHitStore {
  /** Stores the rows, replacing the hits of keys stored before. */
  saveCrawlerHits(rows: readonly CrawlerHitRow[]): Promise<void>;
  /** Rows by hits descending, then name. */
  crawlerRows(scope: CrawlerScope, dim: CrawlerDim, limit: number): Promise<CrawlerRow[]>;
  /** Hits per hour and category, sparse. */
  crawlerHours(scope: CrawlerScope): Promise<CrawlerHour[]>;
}
