/**
 * Lambda entry of the import worker (AWS): chunk messages from the import
 * queue (SQS), jobs in the registry table, credentials under the KMS key,
 * rows into the event store (ClickHouse or Timestream), which also serves as
 * the import ledger. Timestream must accept the old timestamps of an import
 * (magnetic store writes).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoImportJobs } from '#adapters/dynamodb/import-jobs.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { awsClient } from '#aws/clients.ts';
import { awsImportStores } from '#aws/event-store.ts';
import { loadConfig, required } from '#platform/config.ts';
import { importSourceFor } from '#platform/import-source.ts';
import { systemClock } from '#ports/clock.ts';
import { createImportWorker } from '#workers/import-worker.ts';
import { createSqsImportWorkerHandler } from '#workers/sqs-import-worker.ts';

const config = loadConfig();
const { events, ledger, rollups } = await awsImportStores(config);

export const handler = createSqsImportWorkerHandler(
  createImportWorker({
    jobs: new DynamoImportJobs(awsClient(DynamoDBClient), config.tableName),
    secrets: new KmsSecretBox(awsClient(KMSClient), required(config, 'importKmsKeyId')),
    source: importSourceFor(config),
    ledger,
    events,
    rollups,
    clock: systemClock,
  }),
);
