/**
 * Compaction of the S3 store (issue 44): a site-day's files merged into one sorted file (each
 * stored row once, parquet-files.ts merge), put, then swapped into the manifest in one
 * conditional write that keeps any file listed meanwhile; the replaced files are retired there
 * and deleted once a later run finds them older than the grace period (a read that listed them
 * before the swap has finished by then). Each step may die: the merged file is named by what it
 * merges, so a run again after a crash puts the same file and swaps it once; a swap finds its
 * inputs gone (another run swapped them) and does nothing; a delete is repeated until its entry
 * leaves the manifest. Two runs at once therefore never lose or double a row.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SiteRef } from '#ports/report-store.ts';
import { objectKey, type Manifest, type SiteDay } from './manifest.ts';
import type { ObjectCache } from './object-cache.ts';
import { ParquetFiles } from './parquet-files.ts';
import { deleteObjects, putFile, type EventBucket } from './s3-event-store.ts';

/** Longer than any report or export page may run (the API's longest timeout is 30 s, the export's 15 min). */
export const RETIRED_GRACE_MS = 30 * 60_000;

/** The steps of a compaction, named for the tests that stop it between them. */
export type CompactionStep = 'merged' | 'swapped' | 'deleted';

export interface CompactionResult {
  /** Files merged into one (0: the day had one file or none). */
  merged: number;
  /** Retired files deleted. */
  deleted: number;
}

export class Compactor {
  private readonly files: ParquetFiles;

  constructor(
    connection: DuckDBConnection,
    scratch: string,
    private readonly bucket: EventBucket,
    private readonly manifest: Manifest,
    private readonly cache: ObjectCache,
    private readonly now: () => number = Date.now,
    /** Called after each step (tests throw here to stop a run). */
    private readonly after: (step: CompactionStep) => void = () => {},
  ) {
    this.files = new ParquetFiles(connection, join(scratch, 'compactor'));
  }

  /** Compacts one site-day: deletes its retired files past the grace period, then merges its files when it has several. */
  async compactDay(ref: SiteRef, day: number): Promise<CompactionResult> {
    const deleted = await this.deleteRetired(ref, day);
    const current = await this.manifest.get(ref, day);
    if (current.files.length < 2) return { merged: 0, deleted };
    const inputs = current.files;
    const name = `c-${createHash('sha256').update(inputs.map((f) => f.name).sort().join(',')).digest('hex').slice(0, 30)}.parquet`;
    const paths = await this.cache.paths(inputs.map((f) => ({ key: objectKey(ref, day, f.name), etag: f.etag })));
    const merged = await this.files.merge(paths);
    const etag = await putFile(this.bucket, objectKey(ref, day, name), merged.bytes);
    this.cache.trim();
    this.after('merged');
    const names = new Set(inputs.map((f) => f.name));
    let swapped = false;
    await this.manifest.change(ref, day, (now) => {
      // Another run swapped them (or a removal took the day): nothing of ours to list.
      if (!inputs.every((f) => now.files.some((g) => g.name === f.name && g.etag === f.etag))) return null;
      swapped = true;
      return {
        files: [{ name, etag, rows: merged.rows }, ...now.files.filter((f) => !names.has(f.name))],
        retired: [...now.retired, ...inputs.map((f) => ({ name: f.name, at: this.now() }))],
      };
    });
    this.after('swapped');
    return { merged: swapped ? inputs.length : 0, deleted };
  }

  /** Deletes the day's retired files past the grace period, then drops them from the manifest. */
  private async deleteRetired(ref: SiteRef, day: number): Promise<number> {
    const due = (d: SiteDay) => d.retired.filter((r) => r.at + RETIRED_GRACE_MS <= this.now());
    const old = due(await this.manifest.get(ref, day));
    if (old.length === 0) return 0;
    await deleteObjects(this.bucket, old.map((r) => objectKey(ref, day, r.name)));
    this.after('deleted');
    const gone = new Set(old.map((r) => r.name));
    await this.manifest.change(ref, day, (now) => ({ files: now.files, retired: now.retired.filter((r) => !gone.has(r.name)) }));
    return old.length;
  }
}
