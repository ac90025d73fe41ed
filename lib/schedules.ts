/**
 * Scheduled workers (DESIGN.md §1: EventBridge rules; locally, in-process
 * timers calling the same handlers). Salt rotation: shortly after each UTC
 * midnight, the previous days' visitor salts are deleted so yesterday's
 * hashes can never be recomputed (spec: the salt is deleted when the day ends).
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { alarmOnAny } from './alarms.ts';
import { NodeFunction } from './node-function.ts';
import { deadLetterQueue, messagesWaitingAlarm } from './queues.ts';
import { KEY_PATTERNS, grantTableRules } from './table-access.ts';

/** EventBridge's attempts to invoke the rotation after the first (Lambda then retries a failed run twice itself). */
export const ROTATION_RETRY_ATTEMPTS = 4;

/** The rotation's Lambda entry: the registry alone. */
export const ROTATE_SALTS_ENTRY = 'functions/aws/workers/rotate-salts.ts';

export interface SchedulesProps {
  table: dynamodb.ITable;
}

export class Schedules extends Construct {
  readonly rotateSalts: NodeFunction;
  readonly rotateSaltsRule: events.Rule;
  /** Rotation events EventBridge could not deliver. */
  readonly rotateSaltsDeadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.rotateSalts = new NodeFunction(this, 'RotateSaltsFunction', {
      entry: ROTATE_SALTS_ENTRY,
      description: 'tinytrack worker: delete the visitor salts of past UTC days',
      timeout: Duration.seconds(60),
      environment: { TABLE_NAME: props.table.tableName },
    });
    // Queries the salt items and deletes them one by one; the next collector request creates today's.
    grantTableRules(props.table, this.rotateSalts, [{ keys: [KEY_PATTERNS.salts], actions: ['Query', 'DeleteItem'] }]);
    // A run the rule could not deliver after its retries lands here instead of vanishing.
    this.rotateSaltsDeadLetterQueue = deadLetterQueue(this, 'RotateSaltsDeadLetter');
    // 00:00 UTC: the ended day's salt is gone at the day boundary (the hash code never uses it after midnight anyway).
    this.rotateSaltsRule = new events.Rule(this, 'RotateSaltsRule', {
      description: 'tinytrack: rotate visitor salts daily at 00:00 UTC',
      schedule: events.Schedule.cron({ minute: '0', hour: '0' }),
      targets: [
        new targets.LambdaFunction(this.rotateSalts, {
          retryAttempts: ROTATION_RETRY_ATTEMPTS,
          maxEventAge: Duration.hours(2),
          deadLetterQueue: this.rotateSaltsDeadLetterQueue,
        }),
      ],
    });
    // A missed rotation keeps yesterday's salt, so yesterday's visitor hashes could still be
    // recomputed: the spec's privacy promise. Both ways it can fail raise an alarm.
    messagesWaitingAlarm(
      this,
      'RotateSaltsDeadLetterAlarm',
      this.rotateSaltsDeadLetterQueue,
      'tinytrack: the daily salt rotation was not delivered (EventBridge gave up); past salts are NOT deleted: invoke the rotation function by hand',
    );
    alarmOnAny(
      this,
      'RotateSaltsErrorsAlarm',
      this.rotateSalts.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      'tinytrack: the daily salt rotation failed; past salts may NOT be deleted: read its logs and invoke the rotation function again',
    );
  }
}
