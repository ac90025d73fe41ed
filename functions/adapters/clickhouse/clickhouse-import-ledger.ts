/**
 * The import ledger over the ClickHouse event table: imported rows looked up
 * by (site, registration, kind, source_id) within the batch's time span, which the
 * (site, ts) sort key bounds to a few granules. The stored rows are the
 * ledger (functions/ports/import-ledger.ts).
 */
import type { ImportedKind, ImportLedger } from '#ports/import-ledger.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { ClickHouseEventStore } from './clickhouse-event-store.ts';

const IMPORTED_IN_SPAN = `site = {site:String} AND registration = {registration:String} AND kind = {kind:String} AND imported AND ts BETWEEN {from:Int64} AND {to:Int64}`;

export class ClickHouseImportLedger implements ImportLedger {
  constructor(private readonly events: ClickHouseEventStore) {}

  async findImported({ site, registration }: SiteRef, kind: ImportedKind, sourceIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (sourceIds.length === 0) return found;
    const rows = await this.events.executor.query<{ source_id: string; id: string }>(
      `SELECT source_id, min(id) AS id FROM ${this.events.table}
       WHERE ${IMPORTED_IN_SPAN} AND source_id IN {ids:Array(String)}
       GROUP BY source_id`,
      { site, registration, kind, from: Math.trunc(fromMs), to: Math.trunc(toMs), ids: [...sourceIds] },
    );
    for (const r of rows) found.set(r.source_id, r.id);
    return found;
  }

  async hasImported({ site, registration }: SiteRef, kind: ImportedKind, fromMs: number, toMs: number): Promise<boolean> {
    const rows = await this.events.executor.query(`SELECT 1 AS found FROM ${this.events.table} WHERE ${IMPORTED_IN_SPAN} LIMIT 1`, {
      site,
      registration,
      kind,
      from: Math.trunc(fromMs),
      to: Math.trunc(toMs),
    });
    return rows.length > 0;
  }
}
