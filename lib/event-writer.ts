/**
 * The event writer (DESIGN.md §1, §7): an SQS event source mapping feeds the
 * collector's rows to a Lambda that appends them to the event store and
 * reports per-message failures, so SQS redelivers only those (and, after
 * MAX_RECEIVE_COUNT receives, parks them in the dead-letter queue).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { alarmOnAny } from './alarms.ts';
import { NodeFunction } from './node-function.ts';
import type { EventStoreResource } from './event-store.ts';

/**
 * The Lambda entry: `export const handler = createSqsEventWriterHandler(store)`
 * (functions/workers/event-writer.ts) with the event store its environment
 * names (functions/aws/event-store.ts). It needs no registry and no issuer.
 */
export const EVENT_WRITER_ENTRY = 'functions/aws/workers/event-writer.ts';

export const WRITER_DESCRIPTION = 'tinytrack worker: event queue → event store';

/** Rows older than this on the event queue mean the writer falls behind (or fails) for a while. */
export const WRITER_BACKLOG_ALARM_AGE = Duration.hours(1);

export interface EventWriterProps {
  queue: sqs.IQueue;
  store: EventStoreResource;
  /**
   * At most this many writer invocations at once (the event source's maximum
   * concurrency, 2 or more): a backlog, say after a store outage, drains at
   * this pace instead of taking the account's concurrency from the collector.
   */
  maxConcurrency: number;
}

export class EventWriter extends Construct {
  readonly function: NodeFunction;

  constructor(scope: Construct, id: string, props: EventWriterProps) {
    super(scope, id);
    this.function = new NodeFunction(this, 'Function', {
      entry: EVENT_WRITER_ENTRY,
      description: WRITER_DESCRIPTION,
      timeout: props.store.writer.timeout,
      environment: { ...props.store.environment('write') },
    });
    props.store.grant(this.function, 'write');
    // Grants receive/delete/change-visibility on the queue.
    this.function.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: props.store.writer.batchSize,
        maxBatchingWindow: props.store.writer.batchingWindow,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency,
      }),
    );
    // Failed invocations (timeouts, crashes; rejected rows are item failures and end in the DLQ).
    alarmOnAny(
      this,
      'ErrorsAlarm',
      this.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      'tinytrack: the event writer fails; collected rows wait on the event queue (see its logs)',
      { evaluationPeriods: 3, datapointsToAlarm: 2 },
    );
    // The concurrency cap's other side: rows wait instead. Also catches a writer that cannot keep up.
    new cloudwatch.Alarm(this, 'BacklogAlarm', {
      alarmDescription: `tinytrack: collected rows wait on the event queue for over ${WRITER_BACKLOG_ALARM_AGE.toHumanString()}; raise -c writerMaxConcurrency or check the writer`,
      metric: props.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: WRITER_BACKLOG_ALARM_AGE.toSeconds(),
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
