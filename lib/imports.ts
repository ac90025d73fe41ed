/**
 * Historical imports on AWS (DESIGN.md §1): the `imports` route
 * group seals the source's API key under a KMS envelope and queues one
 * message per chunk (a month of page views or events); the import worker
 * takes them one at a time from the import queue, opens the key, streams the
 * export into the event store (which is also its de-duplication ledger) and
 * records the chunk in the registry table.
 *
 * The route group's grants live in lib/api.ts GROUP_ACCESS (`importQueue`,
 * `importKey: 'seal'`); this construct owns the queue, the key and the worker.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { alarmOnAny } from './alarms.ts';
import { NodeFunction } from './node-function.ts';
import { WorkQueue } from './queues.ts';
import { KEY_PATTERNS, grantTableRules } from './table-access.ts';
import type { EventStoreResource } from './event-store.ts';

/**
 * The Lambda entry: `createSqsImportWorkerHandler` (functions/workers/sqs-import-worker.ts)
 * over the registry table, the KMS secret box, the Simple Analytics client and Timestream.
 */
export const IMPORT_WORKER_ENTRY = 'functions/aws/workers/import-worker.ts';
export const IMPORT_WORKER_DESCRIPTION = 'tinytrack worker: import queue → event store';

/**
 * One chunk is a whole month of one kind of datapoint: a busy site's month is
 * a CSV of a million rows or more, streamed, mapped, checked against the ledger
 * per 5,000 rows and written 100 records per Timestream request, and the worker
 * itself may wait out source retries (5 requests with up to 60 s `Retry-After`,
 * a chunk run up to 3 times). Lambda's maximum: a chunk that cannot finish in
 * 15 minutes cannot finish at all, so nothing is gained by a shorter limit.
 */
export const IMPORT_WORKER_TIMEOUT = Duration.minutes(15);
/**
 * One full vCPU (Lambda allots CPU in proportion to memory; 1,769 MB is one
 * vCPU): CSV parsing and row mapping run inline on Lambda and are CPU-bound.
 * Memory itself stays small, as the export is streamed (one batch of 5,000
 * rows plus the ledger's answer for it at a time).
 */
export const IMPORT_WORKER_MEMORY_MB = 1769;
/** One chunk per invocation: a month of CSV fills a run; a failure redelivers that chunk alone. */
export const IMPORT_WORKER_BATCH_SIZE = 1;
/**
 * The encryption context every sealed import credential carries (the
 * imports handler seals and the import worker opens under `{site, job_id}`:
 * functions/http/handlers/imports.ts, functions/workers/import-steps.ts).
 * The key's grants require it, so the key never seals or opens anything
 * that is not one site's job credential.
 */
export const CREDENTIAL_CONTEXT_KEYS = ['site', 'job_id'] as const;
/** A crawler link's Cloudflare token is sealed under these (functions/workers/crawler-sync.ts, crawlerTokenContext). */
export const CRAWLER_TOKEN_CONTEXT_KEYS = ['purpose', 'site', 'registration'] as const;

/** A KMS grant on `key` for `action`, only under a credential's encryption context (an import job's, or `contextKeys`). */
export function grantUnderCredentialContext(
  key: kms.IKey,
  grantee: iam.IGrantable,
  action: 'kms:GenerateDataKey' | 'kms:Decrypt',
  contextKeys: readonly string[] = CREDENTIAL_CONTEXT_KEYS,
): void {
  iam.Grant.addToPrincipal({
    grantee,
    actions: [action],
    resourceArns: [key.keyArn],
    conditions: {
      // No other context key, and both of these present.
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...contextKeys] },
      Null: Object.fromEntries(contextKeys.map((k) => [`kms:EncryptionContext:${k}`, 'false'])),
    },
  });
}

export interface ImportsProps {
  table: dynamodb.ITable;
  eventStore: EventStoreResource;
  /**
   * At most this many chunks at once across all jobs (`-c importWorkerMaxConcurrency`, default 2,
   * the event source's minimum): bounds the load on the Simple Analytics export API (a 400-day
   * job has up to 30 chunks, and one owner may start 20 jobs a day), on the event store, and the
   * Lambda concurrency imports take from the collector and the writer.
   */
  maxConcurrency: number;
}

export class Imports extends Construct {
  /** The chunk queue and its dead-letter queue. */
  readonly queue: WorkQueue;
  /** Wraps the per-job data keys that seal the sources' API keys. */
  readonly key: kms.Key;
  readonly worker: NodeFunction;

  constructor(scope: Construct, id: string, props: ImportsProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'tinytrack: wraps the data keys of import credentials (sealed API keys in the registry table)',
      enableKeyRotation: true,
      alias: `alias/${Stack.of(this).stackName}/imports`,
      // Like the registry table, which holds the sealed credentials it opens (kept up to 30 days).
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.queue = new WorkQueue(this, 'Chunks', {
      consumerTimeout: IMPORT_WORKER_TIMEOUT,
      // The maximum: with five chunks at a time a backlog of many jobs can wait for days, and a
      // chunk message that expired would leave its job running until the owner cancels it.
      retentionPeriod: Duration.days(14),
      deadLetterAlarmDescription:
        'tinytrack: import chunks in the dead-letter queue (the store or registry kept failing); their jobs stay running: ' +
        'redrive once the store works, or cancel and retry the job (retry queues only unrecorded chunks)',
    });
    this.worker = new NodeFunction(this, 'WorkerFunction', {
      entry: IMPORT_WORKER_ENTRY,
      description: IMPORT_WORKER_DESCRIPTION,
      timeout: IMPORT_WORKER_TIMEOUT,
      memorySize: IMPORT_WORKER_MEMORY_MB,
      environment: { TABLE_NAME: props.table.tableName, IMPORT_KMS_KEY_ID: this.key.keyArn, ...props.eventStore.environment('read-write') },
    });
    // Jobs, counts, the site lock and the sealed key, all under the site: reads them, records
    // progress, releases the lock and deletes the sealed key when a job ends. Never creates an item.
    // (Re-queueing active jobs through gsi1 after a start is local only.)
    grantTableRules(props.table, this.worker, [{ keys: [KEY_PATTERNS.site], actions: ['GetItem', 'UpdateItem', 'DeleteItem'] }]);
    // Opens sealed API keys, under their context only; it never seals one.
    grantUnderCredentialContext(this.key, this.worker, 'kms:Decrypt');
    // Writes the imported rows and queries the same table as its de-duplication ledger.
    props.eventStore.grant(this.worker, 'read-write');
    // Grants receive/delete/change-visibility; the worker never sends (re-queueing is local only).
    this.worker.addEventSource(
      new SqsEventSource(this.queue.queue, {
        batchSize: IMPORT_WORKER_BATCH_SIZE,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency,
      }),
    );
    // A failed run (a timeout, a crash) takes its chunk back to the queue and, five times over,
    // to the dead-letter queue: the job stays running meanwhile and nobody would know.
    alarmOnAny(
      this,
      'WorkerErrorsAlarm',
      this.worker.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      'tinytrack: the import worker fails (timeouts or crashes); its chunks are retried, then dead-lettered: read its logs',
    );
  }
}
