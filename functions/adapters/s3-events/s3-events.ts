/**
 * The S3 event store's parts over one bucket and manifest table (issue 44): the writer, the
 * mirror reports read, and the reports. AWS builds it from the stack's names; `npm start` from
 * S3_EVENTS_URL with the manifest in its local DynamoDB; the tests over s3rver and dynalite.
 */
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Manifest } from './manifest.ts';
import { EventMirror, DEFAULT_MIRROR_ROWS } from './mirror.ts';
import { ObjectCache } from './object-cache.ts';
import { S3EventStore, type EventBucket } from './s3-event-store.ts';
import { S3ReportStore } from './s3-report-store.ts';
import { DuckDBInstance } from '@duckdb/node-api';
import { Compactor, type CompactionStep } from './compactor.ts';

/** Parquet objects cached on disk by default (Lambda's /tmp is sized for it, lib/event-store.ts). */
export const DEFAULT_CACHE_BYTES = 2 * 2 ** 30;

export interface S3EventsSettings {
  bucket: EventBucket;
  dynamo: DynamoDBClient;
  /** The manifest table. */
  table: string;
  /** A directory of this process's own: the writer's scratch files and the object cache. */
  dir: string;
  cacheBytes?: number;
  mirrorRows?: number;
  /** Create the manifest table when missing (local runs; the stack makes it on AWS). */
  createTable?: boolean;
  /** The compactor's clock and a hook after each of its steps (tests stop it there). */
  compaction?: { now?: () => number; after?: (step: CompactionStep) => void };
}

export interface S3Events {
  manifest: Manifest;
  /** The writer; opened on first use, so a reader never starts one. */
  writer(): Promise<S3EventStore>;
  /** The mirror reports read; opened on first use. */
  mirror(): Promise<EventMirror>;
  reports(): Promise<S3ReportStore>;
  /** One compaction pass over every site-day with work (compactor.ts); returns the site-days compacted. */
  compact(): Promise<number>;
  close(): Promise<void>;
}

export async function openS3Events(settings: S3EventsSettings): Promise<S3Events> {
  const manifest = new Manifest(settings.dynamo, settings.table);
  if (settings.createTable) await manifest.ensureTable();
  let writer: Promise<S3EventStore> | undefined;
  let mirror: Promise<EventMirror> | undefined;
  let reports: Promise<S3ReportStore> | undefined;
  const openMirror = () =>
    (mirror ??= EventMirror.open(
      manifest,
      cacheOf('cache', settings.cacheBytes ?? DEFAULT_CACHE_BYTES),
      settings.mirrorRows ?? DEFAULT_MIRROR_ROWS,
    ));
  const cacheOf = (name: string, bytes: number) => new ObjectCache(settings.bucket.s3, settings.bucket.bucket, join(settings.dir, name), bytes);
  let compactor: Promise<{ compactor: Compactor; instance: DuckDBInstance }> | undefined;
  const openCompactor = () =>
    (compactor ??= (async () => {
      const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
      const cache = cacheOf('compaction', 0);
      const { now, after } = settings.compaction ?? {};
      return { instance, compactor: new Compactor(await instance.connect(), settings.dir, settings.bucket, manifest, cache, now, after) };
    })());
  return {
    manifest,
    compact: async () => {
      const { compactor } = await openCompactor();
      let compacted = 0;
      for (const day of await manifest.pending()) {
        const done = await compactor.compactDay(day.ref, day.day);
        if (done.merged + done.deleted > 0) compacted++;
      }
      return compacted;
    },
    writer: () => (writer ??= S3EventStore.open(settings.bucket, manifest, settings.dir)),
    mirror: openMirror,
    reports: () => (reports ??= openMirror().then((m) => new S3ReportStore(m))),
    close: async () => {
      await (await writer)?.close();
      (await mirror)?.close();
      (await compactor)?.instance.closeSync();
    },
  };
}
