/**
 * What the stack needs of an event store, whichever engine it is
 * (lib/clickhouse.ts, lib/timestream.ts): the environment of the functions
 * that use it and their grants, by what each does with the events, and how
 * the writer should feed it.
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

/**
 * What a function does with the events: the reports function reads (and
 * caches report rollups), the event writer writes, the import worker writes
 * and reads back (the store is its import ledger).
 */
export type EventStoreAccess = 'read' | 'write' | 'read-write';

export interface EventStoreResource {
  readonly writer: WriterSettings;
  /** Keeps the API-requests series (POST /api/ingest, API reports): ClickHouse does; Timestream, frozen, does not. */
  readonly keepsApiRequests: boolean;
  /** Variables for a function with this access. */
  environment(access: EventStoreAccess): Readonly<Record<string, string>>;
  /** What a function with this access may do on AWS, nothing more. */
  grant(grantee: iam.IGrantable, access: EventStoreAccess): void;
}
