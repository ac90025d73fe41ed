/**
 * What the stack needs of an event store, whichever engine it is
 * (lib/clickhouse.ts, lib/timestream.ts): the environment of the functions
 * that use it, their grants, and how the writer should feed it.
 */
import type { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';

export interface WriterSettings {
  /** SQS messages (rows) per writer invocation. */
  batchSize: number;
  /** How long SQS waits to fill a batch. */
  batchingWindow: Duration;
  /** The writer function's timeout (the queue's visibility timeout follows it). */
  timeout: Duration;
}

export interface EventStoreResource {
  /** Variables for the functions that read or write events. */
  readonly environment: Readonly<Record<string, string>>;
  readonly writer: WriterSettings;
  /** The event writer and the import worker. */
  grantWrite(grantee: iam.IGrantable): void;
  /** The reports functions. */
  grantRead(grantee: iam.IGrantable): void;
}
