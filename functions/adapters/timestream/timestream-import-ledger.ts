/**
 * The import ledger over Timestream (AWS): imported rows are looked up by
 * site and registration, kind, time span and source id in the event table itself, as on DuckDB
 * (functions/ports/import-ledger.ts). The time predicate keeps each query to
 * the batch's partitions; source ids go in IN lists of bounded length so a
 * statement stays far below Timestream's query size limit.
 */
import { QueryCommand, type TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import type { ImportedKind, ImportLedger } from '#ports/import-ledger.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { sqlIdentifier, sqlInteger, sqlString } from '#domain/sql-literals.ts';
import { parseRow, type PlainRow } from './timestream-report-store.ts';

/** Source ids per statement: ~45 bytes each, so a statement stays around 25 KB. */
const IDS_PER_QUERY = 500;

/** A table that never stored an imported row has no `source_id` / `imported` columns yet: nothing is imported. */
const isMissingColumn = (e: unknown) => {
  const err = e as { name?: string; message?: string } | null;
  return err?.name === 'ValidationException' && /source_id|imported|registration/.test(err.message ?? '');
};

export class TimestreamImportLedger implements ImportLedger {
  constructor(
    private readonly client: TimestreamQueryClient,
    private readonly database: string,
    private readonly table: string,
  ) {}

  private async query(sql: string): Promise<PlainRow[]> {
    const rows: PlainRow[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const out = await this.client.send(new QueryCommand({ QueryString: sql, ...(nextToken ? { NextToken: nextToken } : {}) }));
        for (const row of out.Rows ?? []) rows.push(parseRow(out.ColumnInfo ?? [], row));
        nextToken = out.NextToken;
      } while (nextToken);
    } catch (e) {
      if (isMissingColumn(e)) return [];
      throw e;
    }
    return rows;
  }

  /** A table whose records never carried a registration has no such column: the query fails as for source_id, and nothing is imported. */
  private where({ site, registration }: SiteRef, kind: ImportedKind, fromMs: number, toMs: number): string {
    return `site = ${sqlString(site)} AND registration = ${sqlString(registration)} AND kind = ${sqlString(kind)} AND time BETWEEN from_milliseconds(${sqlInteger(Math.trunc(fromMs))}) AND from_milliseconds(${sqlInteger(Math.trunc(toMs))}) AND imported = true`;
  }

  async findImported(site: SiteRef, kind: ImportedKind, sourceIds: readonly string[], fromMs: number, toMs: number): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const table = `${sqlIdentifier(this.database)}.${sqlIdentifier(this.table)}`;
    for (let i = 0; i < sourceIds.length; i += IDS_PER_QUERY) {
      const ids = sourceIds.slice(i, i + IDS_PER_QUERY).map(sqlString).join(', ');
      const rows = await this.query(
        `SELECT source_id, min(id) AS id FROM ${table} WHERE ${this.where(site, kind, fromMs, toMs)} AND source_id IN (${ids}) GROUP BY source_id`,
      );
      for (const r of rows) if (typeof r.source_id === 'string' && typeof r.id === 'string') found.set(r.source_id, r.id);
    }
    return found;
  }

  async hasImported(site: SiteRef, kind: ImportedKind, fromMs: number, toMs: number): Promise<boolean> {
    const table = `${sqlIdentifier(this.database)}.${sqlIdentifier(this.table)}`;
    return (await this.query(`SELECT 1 AS found FROM ${table} WHERE ${this.where(site, kind, fromMs, toMs)} LIMIT 1`)).length > 0;
  }
}
