/**
 * The owner's export (ports/row-export.ts, issue 44) on the S3 store: event pages by the DuckDB
 * statement (reports/sql/row-export.ts) over the mirror, loaded for the page's window (at most
 * 32 days, domain/export/pages.ts); the API-requests series from where it lives (`api`: the local
 * DuckDB file for `npm start`; none on AWS, 501).
 */
import type { ExportSeries } from '#domain/export/columns.ts';
import type { ExportRow } from '#domain/export/encode.ts';
import type { PageRequest } from '#domain/export/pages.ts';
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { exportCountSql, exportPageSql } from '#reports/sql/row-export.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { RowExportStore } from '#ports/row-export.ts';
import type { EventMirror } from './mirror.ts';

/** Days a count loads at once: the mirror holds them while it counts. */
const COUNT_DAYS = 32;

export class S3RowExport implements RowExportStore {
  constructor(
    private readonly mirror: EventMirror,
    private readonly api: RowExportStore | null = null,
  ) {}

  private other(): RowExportStore {
    if (!this.api) throw new NotAvailableOnStoreError();
    return this.api;
  }

  async exportPage(series: ExportSeries, site: SiteRef, page: PageRequest): Promise<ExportRow[]> {
    if (series !== 'events') return this.other().exportPage(series, site, page);
    const { sql, params } = exportPageSql('duckdb', 'events', series, site, page);
    const { names, rows } = await this.mirror.over([site], page.from, page.to, () => this.mirror.rowArrays(sql, params));
    return rows.map((values) => Object.fromEntries(names.map((name, i) => [name, values[i]])) as ExportRow);
  }

  async exportCount(series: ExportSeries, site: SiteRef, range: { from: number; to: number }): Promise<number> {
    if (series !== 'events') return this.other().exportCount(series, site, range);
    let count = 0;
    for (let from = range.from; from < range.to; from += COUNT_DAYS * DAY_MS) {
      const part = { from, to: Math.min(range.to, from + COUNT_DAYS * DAY_MS) };
      const { sql, params } = exportCountSql('duckdb', 'events', site, part);
      const [row] = await this.mirror.over([site], part.from, part.to, () => this.mirror.query<{ n: bigint }>(sql, params));
      count += Number(row?.n ?? 0);
    }
    return count;
  }
}
