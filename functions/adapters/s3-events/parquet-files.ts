/**
 * Parquet files of event rows (issue 44), written and read with DuckDB's built-in Parquet (no
 * extension to download): each row's EventRow fields and its 64-bit keys (the DuckDB store's
 * key columns, computed once at write), sorted by (ts, id) so a file's row groups prune by time.
 * Flags are not stored: the reader decides them over the listed files (mirror.ts), as ClickHouse
 * decides them at read.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { appendChunks, type StageColumn } from '#adapters/duckdb/chunk-stager.ts';
import { COLUMN_DEFS, COLUMN_LIST, COLUMNS, KEY_DEFS, KEY_LIST } from '#adapters/duckdb/schema.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { prepareBatch } from '#domain/rows/flags/prepared-batch.ts';
import { sqlString } from '#domain/sql-literals.ts';

/** The columns of a file, in order. */
export const FILE_COLUMNS = `${COLUMN_LIST}, ${KEY_LIST}`;
const FILE_DEFS = `${COLUMN_DEFS}, ${KEY_DEFS}`;
const STAGE_TABLE = 'parquet_stage';

/** The options of every file written: zstd, row groups of 100,000 rows (a day of a busy site spans several, pruned by ts). */
const PARQUET_OPTIONS = "FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100000";

/** The rows' columns for the appender: the fields, then the keys. */
function fileColumns(rows: readonly EventRow[]): StageColumn<EventRow>[] {
  const b = prepareBatch(rows);
  const none = () => null;
  return [
    ...COLUMNS,
    { kind: 'key', value: none, keys: b.id, present: new Uint8Array(rows.length).fill(1) },
    { kind: 'key', value: none, keys: b.visitor, present: b.hasVisitor },
    { kind: 'key', value: none, keys: b.parent, present: b.hasParent },
  ];
}

/** A literal list of file paths for read_parquet. */
export const pathList = (paths: readonly string[]) => `[${paths.map(sqlString).join(', ')}]`;

/**
 * The rows of the files at `paths`, each identity (site, registration, id, ts) once: the row of
 * the earliest file in the list (a batch stored twice over overlapping files, or a redelivery
 * listed after a crash, counts once, as the other stores skip stored rows).
 */
export function distinctRows(paths: readonly string[]): string {
  const list = pathList(paths);
  return `SELECT ${FILE_COLUMNS} FROM read_parquet(${list}, filename = true)
    QUALIFY row_number() OVER (PARTITION BY site, registration, id, ts ORDER BY list_position(${list}, filename)) = 1`;
}

/** Writes and merges Parquet files in a scratch directory, on one connection (its caller runs one at a time). */
export class ParquetFiles {
  private staged = false;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly scratch: string,
  ) {
    mkdirSync(scratch, { recursive: true, mode: 0o700 });
  }

  /** The rows as one file's bytes, sorted by (ts, id). */
  async write(rows: readonly EventRow[]): Promise<Buffer> {
    if (!this.staged) {
      await this.connection.run(`CREATE OR REPLACE TEMP TABLE ${STAGE_TABLE} (${FILE_DEFS})`);
      this.staged = true;
    }
    await this.connection.run(`DELETE FROM ${STAGE_TABLE}`);
    const appender = await this.connection.createAppender(STAGE_TABLE, null, 'temp');
    try {
      appendChunks(appender, fileColumns(rows), rows);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    return this.copyOut(`SELECT * FROM ${STAGE_TABLE} ORDER BY ts, id`);
  }

  /** The distinct rows of `paths` (by identity, the earliest listed file's row kept) as one sorted file, and its row count. */
  async merge(paths: readonly string[]): Promise<{ bytes: Buffer; rows: number }> {
    const counted = await this.connection.runAndReadAll(`SELECT count(*) AS n FROM (${distinctRows(paths)})`);
    const bytes = await this.copyOut(`SELECT ${FILE_COLUMNS} FROM (${distinctRows(paths)}) ORDER BY ts, id`);
    return { bytes, rows: Number(counted.getRowObjectsJS()[0]?.n ?? 0) };
  }

  private path(): string {
    return join(this.scratch, `${randomUUID()}.parquet`);
  }

  private async copyOut(select: string): Promise<Buffer> {
    const out = this.path();
    try {
      await this.connection.run(`COPY (${select}) TO ${sqlString(out)} (${PARQUET_OPTIONS})`);
      return readFileSync(out);
    } finally {
      rmSync(out, { force: true });
    }
  }
}
