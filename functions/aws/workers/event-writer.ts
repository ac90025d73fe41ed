/**
 * Lambda entry of the event writer: SQS batches from the collector into the
 * event store (ClickHouse or Timestream, as the stack chose), and API
 * request rows (POST /api/ingest) into their series beside it. It needs no
 * registry and no issuer.
 */
import { awsWriterStores } from '#aws/event-store.ts';
import { loadConfig } from '#platform/config.ts';
import { createSqsEventWriterHandler } from '#workers/event-writer.ts';

const { events, apiRequests } = await awsWriterStores(loadConfig());

export const handler = createSqsEventWriterHandler(events, apiRequests);
