/**
 * The import ledger over the DuckDB event store: imported rows are looked up
 * by (site, registration, kind, source_id) within the batch's time span, which the `ts` zone maps
 * prune to a few row groups however large the table grows. No table of its
 * own: the stored rows are the ledger (functions/ports/import-ledger.ts).
 */
import { listValue } from '@duckdb/node-api';
import type { ImportedKind, ImportLedger } from '#ports/import-ledger.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { DuckDbEventStore } from './duckdb-event-store.ts';

const IMPORTED_IN_SPAN = (fromMs: number, toMs: number) =>
  `site = $site AND registration = $registration AND kind = $kind AND imported AND ts BETWEEN ${Math.trunc(fromMs)} AND ${Math.trunc(toMs)}`;

export class DuckDbImportLedger implements ImportLedger {
  constructor(private readonly events: Pick<DuckDbEventStore, 'query'>) {}

  async findImported({ site, registration }: SiteRef, kind: ImportedKind, sourceIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (sourceIds.length === 0) return found;
    const rows = await this.events.query<{ source_id: string; id: string }>(
      `SELECT source_id, min(id) AS id FROM events
       WHERE ${IMPORTED_IN_SPAN(fromMs, toMs)} AND source_id IN (SELECT unnest($ids::VARCHAR[]))
       GROUP BY source_id`,
      { site, registration, kind, ids: listValue([...sourceIds]) },
    );
    for (const r of rows) found.set(r.source_id, r.id);
    return found;
  }

  async hasImported({ site, registration }: SiteRef, kind: ImportedKind, fromMs: number, toMs: number): Promise<boolean> {
    const rows = await this.events.query(`SELECT 1 AS found FROM events WHERE ${IMPORTED_IN_SPAN(fromMs, toMs)} LIMIT 1`, { site, registration, kind });
    return rows.length > 0;
  }
}
