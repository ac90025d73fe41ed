/**
 * Work queues with a Lambda consumer (DESIGN.md §1): the event queue between
 * the collector and the event writer (the collector answers 200 once a row is
 * on it), and the import queue of chunk messages. What the consumer
 * cannot process after five receives lands in the dead-letter queue, kept 14
 * days for a redrive, with an alarm as soon as it holds a message.
 */
import { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { alarmOnAny } from './alarms.ts';

/** Receives before a message goes to the dead-letter queue: rides out a store outage of a few redeliveries. */
export const MAX_RECEIVE_COUNT = 5;

export interface WorkQueueProps {
  /** The consumer's function timeout. */
  consumerTimeout: Duration;
  /** The consumer's maximum batching window (none by default). */
  consumerBatchingWindow?: Duration;
  /** How long a message may wait on the main queue (4 days by default). */
  retentionPeriod?: Duration;
  /** What a message in the dead-letter queue means and what to do about it. */
  deadLetterAlarmDescription: string;
}

export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetter');
    const batchingWindow = props.consumerBatchingWindow ?? Duration.seconds(0);
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: props.retentionPeriod ?? Duration.days(4),
      // Six times the consumer's timeout plus its batching window (Lambda's guidance for SQS
      // event sources): a batch retried after throttling is not made visible to a second consumer.
      visibilityTimeout: Duration.seconds(6 * props.consumerTimeout.toSeconds() + batchingWindow.toSeconds()),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    messagesWaitingAlarm(this, 'DeadLetterAlarm', this.deadLetterQueue, props.deadLetterAlarmDescription);
  }
}

/** A dead-letter queue: encrypted, TLS only, kept the maximum 14 days for a redrive. */
export function deadLetterQueue(scope: Construct, id: string): sqs.Queue {
  return new sqs.Queue(scope, id, { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
}

/** An alarm as soon as `queue` holds a message (dead-letter queues: each one is work that failed). */
export function messagesWaitingAlarm(scope: Construct, id: string, queue: sqs.IQueue, description: string): cloudwatch.Alarm {
  return alarmOnAny(scope, id, queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), description);
}
