/**
 * The S3 event store's writer (issue 44): each batch becomes at most one Parquet file per
 * site-day (parquet-files.ts), put to S3, then listed in the manifest (manifest.ts). A file is
 * named by its rows' identities, so a redelivered batch names the same file and, finding it
 * listed, writes nothing; one that died between the put and the listing puts the same rows again
 * and lists them once. Append-only: copies, first of day and appends' pages are decided at read
 * (mirror.ts), and a row stored in two files (overlapping batches) is read once.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DeleteObjectsCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { eventKey, uniqueEvents, type EventRow } from '#domain/rows/event-row.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import { Serial } from '#domain/serial.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { objectKey, type ListedFile, type Manifest } from './manifest.ts';
import { ParquetFiles } from './parquet-files.ts';

/** Where S3 keeps the events: the bucket, and the client that reaches it. */
export interface EventBucket {
  s3: S3Client;
  bucket: string;
}

/** A batch's rows by site-day. */
function bySiteDay(rows: readonly EventRow[]): { ref: SiteRef; day: number; rows: EventRow[] }[] {
  const groups = new Map<string, { ref: SiteRef; day: number; rows: EventRow[] }>();
  for (const row of rows) {
    const day = Math.floor(row.ts / DAY_MS);
    const key = `${row.site}\u0000${row.registration}\u0000${day}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ref: { site: row.site, registration: row.registration }, day, rows: [] }));
    group.rows.push(row);
  }
  return [...groups.values()];
}

/** A file's name from its rows' identities: the same rows always name the same file. */
export function fileNameOf(rows: readonly EventRow[]): string {
  const hash = createHash('sha256');
  for (const key of rows.map(eventKey).sort()) hash.update(key).update('\u0001');
  return `${hash.digest('hex').slice(0, 32)}.parquet`;
}

/** Puts a file's bytes and answers its ETag. */
export async function putFile(bucket: EventBucket, key: string, body: Buffer): Promise<string> {
  const r = await bucket.s3.send(new PutObjectCommand({ Bucket: bucket.bucket, Key: key, Body: body, ContentType: 'application/vnd.apache.parquet' }));
  return (r.ETag ?? '').replaceAll('"', '');
}

/** Deletes objects, up to 1,000 a request. */
export async function deleteObjects(bucket: EventBucket, keys: readonly string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    await bucket.s3.send(new DeleteObjectsCommand({ Bucket: bucket.bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }));
  }
}

export class S3EventStore implements EventStore {
  private readonly writes = new Serial();
  private closed = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private readonly files: ParquetFiles,
    readonly bucket: EventBucket,
    readonly manifest: Manifest,
  ) {}

  /** A writer over `bucket` and `manifest`, its files written in `scratch` (a directory of its own). */
  static async open(bucket: EventBucket, manifest: Manifest, scratch: string): Promise<S3EventStore> {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const connection = await instance.connect();
    return new S3EventStore(instance, connection, new ParquetFiles(connection, join(scratch, 'writer')), bucket, manifest);
  }

  saveEvents(rows: readonly EventRow[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.writes.run(async () => {
      for (const group of bySiteDay(uniqueEvents(rows))) await this.writeSiteDay(group.ref, group.day, group.rows);
    });
  }

  private async writeSiteDay(ref: SiteRef, day: number, rows: readonly EventRow[]): Promise<void> {
    const name = fileNameOf(rows);
    const listed = (files: readonly ListedFile[]) => files.some((f) => f.name === name);
    if (listed((await this.manifest.get(ref, day)).files)) return;
    const etag = await putFile(this.bucket, objectKey(ref, day, name), await this.files.write(rows));
    await this.manifest.update(ref, day, (current) => (listed(current.files) ? null : [...current.files, { name, etag, rows: rows.length }]));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.settled();
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
