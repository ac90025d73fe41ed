/** Lambda entry of the `imports` route group: the registry and its import jobs, the issuer, the chunk queue, the sealing key and the source. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoImportJobs } from '#adapters/dynamodb/import-jobs.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { SqsQueue } from '#adapters/sqs/sqs-queue.ts';
import { createImportsHandler } from '#http/handlers/imports.ts';
import type { ImportChunkMessage } from '#ports/import-jobs.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';
import { importSourceFor } from '#platform/import-source.ts';

const config = loadConfig(lambdaEnv());
const dynamo = awsClient(DynamoDBClient);

export const handler = createImportsHandler({
  ...authServices(config, dynamo),
  importJobs: new DynamoImportJobs(dynamo, config.tableName),
  importQueue: new SqsQueue<ImportChunkMessage>(awsClient(SQSClient), required(config, 'importQueueUrl')),
  secrets: new KmsSecretBox(awsClient(KMSClient), required(config, 'importKmsKeyId')),
  importSource: importSourceFor(config),
});
