/**
 * The daily retention purge on AWS (issue 42): an EventBridge rule at 00:00
 * UTC calling the purge worker (functions/workers/retention-purge.ts), with
 * retries, a dead-letter queue and alarms like the other scheduled workers.
 * It lists the stored sites from the event store (never scanning the
 * registry), reads each site's fields and writes only its `last_purge`, and
 * removes rows from ClickHouse. On Timestream (frozen) there is no purge:
 * the table's own retention (lib/timestream.ts) is the only one there.
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { COLLECTOR_SITE_READ } from './api.ts';
import type { EventStoreResource } from './event-store.ts';
import { NodeFunction } from './node-function.ts';
import { scheduledWorker } from './schedules.ts';
import { KEY_ATTRIBUTES, KEY_PATTERNS, grantTableRules } from './table-access.ts';

export const RETENTION_PURGE_ENTRY = 'functions/aws/workers/retention-purge.ts';
/** What the purge may write of a site item: its last run (the condition names the owner). */
export const PURGE_SITE_WRITE = [...KEY_ATTRIBUTES, 'owner_uid', 'last_purge'] as const;

export interface RetentionPurgeProps {
  table: dynamodb.ITable;
  eventStore: EventStoreResource;
  /** RETENTION_MAX_MONTHS (context `retentionMaxMonths`, 25 by default). */
  maxMonths: number;
}

export class RetentionPurge extends Construct {
  readonly function: NodeFunction;
  readonly rule: events.Rule;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: RetentionPurgeProps) {
    super(scope, id);
    this.function = new NodeFunction(this, 'RetentionPurgeFunction', {
      entry: RETENTION_PURGE_ENTRY,
      description: 'tinytrack worker: remove each site’s rows older than its retention from every series',
      timeout: Duration.minutes(15),
      environment: { TABLE_NAME: props.table.tableName, RETENTION_MAX_MONTHS: String(props.maxMonths), ...props.eventStore.environment('read-write') },
    });
    grantTableRules(props.table, this.function, [
      { keys: [KEY_PATTERNS.site], actions: ['GetItem'], attributes: COLLECTOR_SITE_READ },
      { keys: [KEY_PATTERNS.site], actions: ['UpdateItem'], attributes: PURGE_SITE_WRITE },
    ]);
    props.eventStore.grant(this.function, 'read-write');
    const worker = scheduledWorker(this, 'RetentionPurge', {
      fn: this.function,
      description: 'tinytrack: purge rows past each site’s retention daily at 00:00 UTC',
      schedule: events.Schedule.cron({ minute: '0', hour: '0' }),
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      undelivered: 'tinytrack: the daily retention purge was not delivered (EventBridge gave up); rows past their retention are NOT removed: invoke the purge function by hand',
      failed: 'tinytrack: the daily retention purge failed; rows past their retention may NOT be removed: read its logs and invoke the purge function again',
      errorPeriod: Duration.hours(1),
    });
    this.rule = worker.rule;
    this.deadLetterQueue = worker.deadLetterQueue;
  }
}
