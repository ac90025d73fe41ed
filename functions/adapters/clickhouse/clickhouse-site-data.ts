/**
 * A site's removal (ports/site-data.ts) on ClickHouse: the event rows through
 * the event store (its lists and rollups with them), each other series by a
 * mutation per table, synchronous (mutations_sync = 2), so reports straight
 * afterwards show none of it. A mutation rewrites the parts holding the rows,
 * which frees their space; partitions are months of every site, so no
 * removal of one site owns a whole partition to drop.
 */
import type { SiteRef } from '#ports/report-store.ts';
import type { RemovedRows, SiteDataStore } from '#ports/site-data.ts';
import { assertWholeDays, storedSitesSelect, removeEverySeries, oldestRowOf, oldestSelect, rangeCondition, rangeParams, SIDE_SERIES, type SideSeries } from '#reports/sql/site-data.ts';
import type { ClickHouseEventStore } from './clickhouse-event-store.ts';
import { ident } from './schema.ts';

const chParam = (name: string, type: string) => `{${name}:${type}}`;

export class ClickHouseSiteData implements SiteDataStore {
  constructor(private readonly events: ClickHouseEventStore) {}

  private table(name: string): string {
    return `${ident(this.events.database)}.${name}`;
  }

  /** Deletes the site's rows of `series` in [from, to) from each of its tables; returns the rows of its first table (read FINAL: one per key) that were stored. */
  private async removeSide(series: SideSeries, ref: SiteRef, from: number, to: number): Promise<number> {
    const tables = SIDE_SERIES[series];
    const params = rangeParams(tables, ref, from, to);
    const [first] = tables.tables;
    const [count] = await this.events.executor.query<{ n: number }>(`SELECT count() AS n FROM ${this.table(first)} FINAL WHERE ${rangeCondition(tables, first, chParam)}`, params);
    const removed = Number(count?.n ?? 0);
    if (removed === 0) return 0;
    for (const table of tables.tables) {
      await this.events.executor.command(`ALTER TABLE ${this.table(table)} DELETE WHERE ${rangeCondition(tables, table, chParam)} SETTINGS mutations_sync = 2`, params);
    }
    return removed;
  }

  async removeSiteData(ref: SiteRef, from: number, to: number): Promise<RemovedRows> {
    assertWholeDays(from, to);
    return removeEverySeries(
      () => this.events.removeRange(ref, from, to),
      (series) => this.removeSide(series, ref, from, to),
    );
  }

  async storedSites(): Promise<SiteRef[]> {
    const rows = await this.events.executor.query<SiteRef>(`SELECT site, registration FROM (${storedSitesSelect((t) => this.table(t))}) ORDER BY site, registration`);
    return rows.map((r) => ({ site: String(r.site), registration: String(r.registration) }));
  }

  oldestRow(ref: SiteRef): Promise<number | null> {
    return oldestRowOf(async (source) => {
      const [row] = await this.events.executor.query<{ oldest: unknown }>(oldestSelect(source, this.table(source.tables[0]), chParam), { site: ref.site, registration: ref.registration });
      return row?.oldest;
    });
  }
}
