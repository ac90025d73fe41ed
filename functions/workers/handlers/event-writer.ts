/**
 * Lambda entry of the event writer: SQS batches from the collector into
 * Timestream. It needs only the Timestream names, not the registry or auth.
 */
import { TimestreamWriteClient } from '@aws-sdk/client-timestream-write';
import { TimestreamEventStore } from '#adapters/timestream/timestream-event-store.ts';
import { awsClient } from '#platform/aws-clients.ts';
import { loadConfig, required } from '#platform/config.ts';
import { createSqsEventWriterHandler } from '../event-writer.ts';

const { database, table } = required(loadConfig(), 'timestream');

export const handler = createSqsEventWriterHandler(new TimestreamEventStore(awsClient(TimestreamWriteClient), database, table));
