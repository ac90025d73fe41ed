/**
 * Lambda entry of the import worker (AWS): chunk messages from the import
 * queue (SQS), jobs in the registry table, credentials under the KMS key,
 * rows into Timestream, which also serves as the import ledger. Timestream
 * must accept the old timestamps of an import (magnetic store writes).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { TimestreamWriteClient } from '@aws-sdk/client-timestream-write';
import { DynamoImportJobs } from '#adapters/dynamodb/import-jobs.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { SimpleAnalyticsClient } from '#adapters/simpleanalytics/simpleanalytics-client.ts';
import { TimestreamEventStore } from '#adapters/timestream/timestream-event-store.ts';
import { TimestreamImportLedger } from '#adapters/timestream/timestream-import-ledger.ts';
import { loadConfig } from '#platform/config.ts';
import { systemClock } from '#ports/clock.ts';
import { createImportWorker } from '../import-worker.ts';
import { createSqsImportWorkerHandler } from '../sqs-import-worker.ts';

const config = loadConfig();
const database = process.env.TIMESTREAM_DATABASE;
const table = process.env.TIMESTREAM_TABLE;
if (!database || !table) throw new Error('TIMESTREAM_DATABASE and TIMESTREAM_TABLE are required');
if (!config.importKmsKeyId) throw new Error('IMPORT_KMS_KEY_ID is required');

export const handler = createSqsImportWorkerHandler(
  createImportWorker({
    jobs: new DynamoImportJobs(new DynamoDBClient({}), config.tableName),
    secrets: new KmsSecretBox(new KMSClient({}), config.importKmsKeyId),
    source: new SimpleAnalyticsClient({ baseUrl: config.simpleAnalyticsBaseUrl, credentialTimeoutMs: config.importCredentialTimeoutMs }),
    ledger: new TimestreamImportLedger(new TimestreamQueryClient({}), database, table),
    events: new TimestreamEventStore(new TimestreamWriteClient({}), database, table),
    clock: systemClock,
  }),
);
