/**
 * The event writer (DESIGN.md §1, §7): an SQS event source mapping feeds the
 * collector's rows to a Lambda that appends them to the event store and
 * reports per-message failures, so SQS redelivers only those (and, after
 * MAX_RECEIVE_COUNT receives, parks them in the dead-letter queue).
 */
import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NodeFunction } from './node-function.ts';
import type { Timestream } from './timestream.ts';

/**
 * The Lambda entry: `export const handler = createSqsEventWriterHandler(store)`
 * (functions/workers/sqs-event-writer.ts) with the Timestream EventStore built
 * from TIMESTREAM_DATABASE and TIMESTREAM_TABLE. It needs no registry and no issuer.
 */
export const EVENT_WRITER_ENTRY = 'functions/workers/handlers/event-writer.ts';

/** A batch of 100 Timestream writes with retries and back-off fits well inside this. */
export const WRITER_TIMEOUT = Duration.seconds(30);
/** SQS hands over up to 100 messages, waiting at most this long to fill a batch. */
export const WRITER_BATCHING_WINDOW = Duration.seconds(5);
export const WRITER_BATCH_SIZE = 100;
export const WRITER_DESCRIPTION = 'tinytrack worker: event queue → event store';

export interface EventWriterProps {
  queue: sqs.IQueue;
  store: Timestream;
}

export class EventWriter extends Construct {
  readonly function: NodeFunction;

  constructor(scope: Construct, id: string, props: EventWriterProps) {
    super(scope, id);
    this.function = new NodeFunction(this, 'Function', {
      entry: EVENT_WRITER_ENTRY,
      description: WRITER_DESCRIPTION,
      timeout: WRITER_TIMEOUT,
      environment: { ...props.store.environment },
    });
    props.store.grantWrite(this.function);
    // Grants receive/delete/change-visibility on the queue.
    this.function.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: WRITER_BATCH_SIZE,
        maxBatchingWindow: WRITER_BATCHING_WINDOW,
        reportBatchItemFailures: true,
      }),
    );
  }
}
