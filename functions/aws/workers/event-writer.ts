/**
 * Lambda entry of the event writer: SQS batches from the collector into the
 * event store (ClickHouse or Timestream, as the stack chose). It needs no
 * registry and no issuer.
 */
import { awsEventStore } from '#aws/event-store.ts';
import { loadConfig } from '#platform/config.ts';
import { createSqsEventWriterHandler } from '#workers/event-writer.ts';

export const handler = createSqsEventWriterHandler(await awsEventStore(loadConfig()));
