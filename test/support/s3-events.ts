/**
 * The S3 event store (issue 44) over real local servers: s3rver for S3 and dynalite for the
 * manifest, each in-process on a free port, with files in a temporary directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { openS3Events, type S3Events, type S3EventsSettings } from '#adapters/s3-events/s3-events.ts';

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const BUCKET = 'events';

export interface LocalS3 {
  s3: S3Client;
  dynamo: DynamoDBClient;
  bucket: string;
  /** The URL `npm start` takes as S3_EVENTS_URL for this server and bucket. */
  url: string;
  /** A fresh S3 event store over these servers (its own manifest table and directory). */
  open(options?: Partial<Pick<S3EventsSettings, 'mirrorRows' | 'cacheBytes' | 'compaction' | 'table'>>): Promise<S3Events>;
  close(): Promise<void>;
}

let tables = 0;

export async function startLocalS3(): Promise<LocalS3> {
  const dir = mkdtempSync(join(tmpdir(), 'tt-s3-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: BUCKET }] });
  const s3Address = await s3rver.run();
  const dynamoServer = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((ok) => dynamoServer.listen(0, '127.0.0.1', ok));
  const endpoint = (a: AddressInfo) => `http://127.0.0.1:${a.port}`;
  const region = 'us-east-1';
  const s3 = new S3Client({ endpoint: endpoint(s3Address), forcePathStyle: true, region, credentials: CREDENTIALS, requestChecksumCalculation: 'WHEN_REQUIRED' });
  const dynamo = new DynamoDBClient({ endpoint: endpoint(dynamoServer.address() as AddressInfo), region, credentials: CREDENTIALS });
  const opened: S3Events[] = [];
  return {
    s3,
    dynamo,
    bucket: BUCKET,
    url: `${endpoint(s3Address)}/${BUCKET}`,
    async open(options = {}) {
      const n = ++tables;
      // A table of its own unless `table` names one another store uses (two instances over one store).
      const events = await openS3Events({ bucket: { s3, bucket: BUCKET }, dynamo, table: `event-files-${n}`, dir: join(dir, `store-${n}`), createTable: true, ...options });
      opened.push(events);
      return events;
    },
    async close() {
      for (const events of opened) await events.close();
      s3.destroy();
      dynamo.destroy();
      await s3rver.close();
      await new Promise<void>((ok) => dynamoServer.close(() => ok()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
