/**
 * The queue between the collector and the event writer (DESIGN.md §1): the
 * collector answers 200 once a row is on the queue; the writer drains it in
 * batches and what it cannot write after five receives lands in the
 * dead-letter queue, kept 14 days for a redrive once the store is back.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Receives before a message goes to the dead-letter queue: rides out a few minutes of store outage. */
export const MAX_RECEIVE_COUNT = 5;

export interface EventQueueProps {
  /** The consumer's function timeout. */
  consumerTimeout: Duration;
  /** The consumer's maximum batching window. */
  consumerBatchingWindow: Duration;
}

export class EventQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: EventQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetter', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      // Six times the consumer's timeout plus its batching window (Lambda's guidance for SQS
      // event sources): a batch retried after throttling is not made visible to a second consumer.
      visibilityTimeout: Duration.seconds(6 * props.consumerTimeout.toSeconds() + props.consumerBatchingWindow.toSeconds()),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    // Anything here is collected data that is not in the event store yet.
    new cloudwatch.Alarm(this, 'DeadLetterAlarm', {
      alarmDescription: 'tinytrack: collected events in the dead-letter queue (not stored); redrive once the event store works',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
