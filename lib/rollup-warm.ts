/**
 * The daily rollup warm-up on AWS (issue 43): an EventBridge rule at 00:05
 * UTC calling the warm-up worker (functions/workers/rollup-warm.ts), with
 * retries, a dead-letter queue and alarms like the other scheduled workers.
 * It lists the stored sites from the event store, reads each site's fields
 * (its registration) and builds the rollups of the days sealed since, as the
 * reports function would on a first read: with the reader's access, which
 * may write the rollup tables. ClickHouse only: Timestream keeps no rollups.
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
import { KEY_PATTERNS, grantTableRules } from './table-access.ts';

export const ROLLUP_WARM_ENTRY = 'functions/aws/workers/rollup-warm.ts';

export interface RollupWarmProps {
  table: dynamodb.ITable;
  eventStore: EventStoreResource;
}

export class RollupWarm extends Construct {
  readonly function: NodeFunction;
  readonly rule: events.Rule;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: RollupWarmProps) {
    super(scope, id);
    this.function = new NodeFunction(this, 'RollupWarmFunction', {
      entry: ROLLUP_WARM_ENTRY,
      description: 'tinytrack worker: build each site’s report rollups of the days sealed since the last run',
      timeout: Duration.minutes(15),
      environment: { TABLE_NAME: props.table.tableName, ...props.eventStore.environment('read') },
    });
    grantTableRules(props.table, this.function, [{ keys: [KEY_PATTERNS.site], actions: ['GetItem'], attributes: COLLECTOR_SITE_READ }]);
    props.eventStore.grant(this.function, 'read');
    // 00:05, not 00:00: the purge's run at midnight removes rows (and their rollups) first.
    const worker = scheduledWorker(this, 'RollupWarm', {
      fn: this.function,
      description: 'tinytrack: build the report rollups of the days sealed since, daily at 00:05 UTC',
      schedule: events.Schedule.cron({ minute: '5', hour: '0' }),
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      undelivered: 'tinytrack: the daily rollup warm-up was not delivered (EventBridge gave up); the first reports of yesterday build its rollups: invoke the warm-up function by hand',
      failed: 'tinytrack: the daily rollup warm-up failed for some sites; their first reports build the rollups: read its logs',
      errorPeriod: Duration.hours(1),
    });
    this.rule = worker.rule;
    this.deadLetterQueue = worker.deadLetterQueue;
  }
}
