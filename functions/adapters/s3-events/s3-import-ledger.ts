/**
 * The import ledger (ports/import-ledger.ts) on the S3 store (issue 44): the DuckDB ledger's
 * look-ups over the mirror, loaded for the batch's span first.
 */
import { DuckDbImportLedger } from '#adapters/duckdb/duckdb-import-ledger.ts';
import type { ImportedKind, ImportLedger } from '#ports/import-ledger.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { EventMirror } from './mirror.ts';

export class S3ImportLedger implements ImportLedger {
  private readonly rows: DuckDbImportLedger;

  constructor(private readonly mirror: EventMirror) {
    this.rows = new DuckDbImportLedger(mirror);
  }

  findImported(site: SiteRef, kind: ImportedKind, sourceIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, string>> {
    return this.mirror.over([site], fromMs, toMs + 1, () => this.rows.findImported(site, kind, sourceIds, fromMs, toMs));
  }

  hasImported(site: SiteRef, kind: ImportedKind, fromMs: number, toMs: number): Promise<boolean> {
    return this.mirror.over([site], fromMs, toMs + 1, () => this.rows.hasImported(site, kind, fromMs, toMs));
  }
}
