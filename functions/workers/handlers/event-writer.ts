/**
 * Lambda entry of the event writer: SQS batches from the collector into
 * Timestream. It needs only the Timestream names, not the registry or auth.
 */
import { TimestreamWriteClient } from '@aws-sdk/client-timestream-write';
import { TimestreamEventStore } from '#adapters/timestream/timestream-event-store.ts';
import { createSqsEventWriterHandler } from '../sqs-event-writer.ts';

const database = process.env.TIMESTREAM_DATABASE;
const table = process.env.TIMESTREAM_TABLE;
if (!database || !table) throw new Error('TIMESTREAM_DATABASE and TIMESTREAM_TABLE are required');

export const handler = createSqsEventWriterHandler(new TimestreamEventStore(new TimestreamWriteClient({}), database, table));
