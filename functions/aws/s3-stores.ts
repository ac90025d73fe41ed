/**
 * The S3 event store's parts on AWS (issue 44), over the stack's bucket and manifest table, its
 * files cached in Lambda's /tmp. A module of its own, loaded only when EVENTS_BUCKET is set
 * (event-store.ts): it brings DuckDB, which a Lambda bundle ships beside itself only for this
 * store (lib/node-function.ts), so a function on ClickHouse never loads it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { openS3Events, type S3Events } from '#adapters/s3-events/s3-events.ts';
import { S3ImportLedger } from '#adapters/s3-events/s3-import-ledger.ts';
import { S3RowExport } from '#adapters/s3-events/s3-row-export.ts';
import { S3SiteData } from '#adapters/s3-events/s3-site-data.ts';
import type { S3EventsConfig } from '#platform/config.ts';
import { awsClient } from './clients.ts';

/** Lambda's /tmp, which the stack sizes for the object cache. */
const DIR = '/tmp/tinytrack-events';

let opened: Promise<S3Events> | undefined;

function events(settings: S3EventsConfig): Promise<S3Events> {
  return (opened ??= openS3Events({ bucket: { s3: awsClient(S3Client), bucket: settings.bucket }, dynamo: awsClient(DynamoDBClient), table: settings.table, dir: DIR }));
}

export async function s3Writer(settings: S3EventsConfig) {
  return (await events(settings)).writer();
}

export async function s3Reports(settings: S3EventsConfig) {
  return (await events(settings)).reports();
}

export async function s3ImportLedger(settings: S3EventsConfig) {
  return new S3ImportLedger(await (await events(settings)).mirror());
}

export async function s3RowExport(settings: S3EventsConfig) {
  return new S3RowExport(await (await events(settings)).mirror());
}

/** One compaction pass (adapters/s3-events/compactor.ts): the site-days compacted. */
export async function s3Compact(settings: S3EventsConfig): Promise<number> {
  return (await events(settings)).compact();
}

export async function s3SiteData(settings: S3EventsConfig) {
  const opened = await events(settings);
  return new S3SiteData({ s3: awsClient(S3Client), bucket: settings.bucket }, opened.manifest, await opened.mirror());
}
