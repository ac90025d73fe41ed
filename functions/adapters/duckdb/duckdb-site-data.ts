/**
 * A site's removal (ports/site-data.ts) on the DuckDB file: the event rows
 * through the event store's writer (range-removal.ts), each other series
 * through its own writer's turn (removeSideRows), so no removal races a
 * write on the same rows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SiteRef } from '#ports/report-store.ts';
import type { RemovedRows, SiteDataStore } from '#ports/site-data.ts';
import { assertWholeDays, storedSitesSelect, removeEverySeries, oldestRowOf, oldestSelect, rangeCondition, rangeParams, SIDE_SERIES, type SideSeries } from '#reports/sql/site-data.ts';
import type { DuckDbEventStore } from './duckdb-event-store.ts';
import { inTransaction } from './transaction.ts';

const duckParam = (name: string) => `$${name}`;

/** Deletes the site's rows of `series` in [from, to) from each of its tables on `writer`, in one transaction; returns the rows of its first table removed. */
export function removeSideRows(writer: DuckDBConnection, series: SideSeries, ref: SiteRef, from: number, to: number): Promise<number> {
  const tables = SIDE_SERIES[series];
  const params = rangeParams(tables, ref, from, to);
  return inTransaction(writer, async () => {
    let removed = 0;
    for (const table of tables.tables) {
      const result = await writer.run(`DELETE FROM ${table} WHERE ${rangeCondition(tables, table, duckParam)}`, params);
      if (table === tables.tables[0]) removed = Number(result.rowsChanged);
    }
    return removed;
  });
}

/** What removes a series' rows in its writer's turn. */
export interface RangeRemover {
  removeRange(ref: SiteRef, from: number, to: number): Promise<number>;
}

export class DuckDbSiteData implements SiteDataStore {
  constructor(
    private readonly events: DuckDbEventStore,
    private readonly series: Record<SideSeries, RangeRemover>,
  ) {}

  async removeSiteData(ref: SiteRef, from: number, to: number): Promise<RemovedRows> {
    assertWholeDays(from, to);
    return removeEverySeries(
      () => this.events.removeRange(ref, from, to),
      (series) => this.series[series].removeRange(ref, from, to),
    );
  }

  async storedSites(): Promise<SiteRef[]> {
    const rows = await this.events.query<SiteRef>(`SELECT site, registration FROM (${storedSitesSelect((t) => t)}) ORDER BY site, registration`);
    return rows.map((r) => ({ site: String(r.site), registration: String(r.registration) }));
  }

  oldestRow(ref: SiteRef): Promise<number | null> {
    return oldestRowOf(async (source) => {
      const [row] = await this.events.query<{ oldest: unknown }>(oldestSelect(source, source.tables[0], duckParam), { site: ref.site, registration: ref.registration });
      return row?.oldest;
    });
  }
}
