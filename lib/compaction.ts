/**
 * The S3 store's compaction on AWS (issue 44): an EventBridge rule each hour calling the
 * compaction worker (functions/aws/workers/event-compaction.ts), which merges each site-day's
 * small files (today's too) into one and deletes replaced files after their grace period; with
 * retries, a dead-letter queue and alarms like the other scheduled workers. A run that fails
 * leaves every row readable (the manifest swaps atomically): reads just open more files.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { EventStoreResource } from './event-store.ts';
import { NodeFunction } from './node-function.ts';
import { scheduledWorker } from './schedules.ts';

export const EVENT_COMPACTION_ENTRY = 'functions/aws/workers/event-compaction.ts';

export class EventCompaction extends Construct {
  readonly function: NodeFunction;
  readonly rule: events.Rule;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: { eventStore: EventStoreResource }) {
    super(scope, id);
    this.function = new NodeFunction(this, 'EventCompactionFunction', {
      entry: EVENT_COMPACTION_ENTRY,
      description: 'tinytrack worker: merge each site-day’s event files into one, delete replaced files',
      timeout: Duration.minutes(15),
      environment: { ...props.eventStore.environment('read-write') },
    });
    props.eventStore.grant(this.function, 'read-write');
    const worker = scheduledWorker(this, 'EventCompaction', {
      fn: this.function,
      description: 'tinytrack: compact the event files hourly',
      schedule: events.Schedule.cron({ minute: '20' }),
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      undelivered: 'tinytrack: the hourly event compaction was not delivered (EventBridge gave up); reports read more files until a run succeeds',
      failed: 'tinytrack: the hourly event compaction failed; every row stays readable, reports slow down as files pile up: read its logs',
      errorPeriod: Duration.hours(3),
    });
    this.rule = worker.rule;
    this.deadLetterQueue = worker.deadLetterQueue;
  }
}
