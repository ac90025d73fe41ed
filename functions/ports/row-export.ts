/**
 * Port: the raw rows of a site's series for its owner's export (issue 42),
 * read a page at a time (domain/export/pages.ts). DuckDB and ClickHouse;
 * Timestream (frozen) answers 501.
 */
import type { ExportSeries } from '#domain/export/columns.ts';
import type { ExportRow } from '#domain/export/encode.ts';
import type { PageRequest } from '#domain/export/pages.ts';
import type { SiteRef } from './report-store.ts';

export interface RowExportStore {
  /**
   * The series' rows of the site's registration with page.from <= ts < page.to and (ts, id) after
   * page.after, in (ts, id) order, at most page.limit: only the series' export columns
   * (domain/export/columns.ts, by stored name), never any other.
   */
  exportPage(series: ExportSeries, site: SiteRef, page: PageRequest): Promise<ExportRow[]>;
  /** How many rows of the series the site's registration has with range.from <= ts < range.to. */
  exportCount(series: ExportSeries, site: SiteRef, range: { from: number; to: number }): Promise<number>;
}
