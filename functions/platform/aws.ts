/** Adapters for AWS Lambda: DynamoDB, the configured OIDC issuer (Cognito by default). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { SqsQueue } from '#adapters/sqs/sqs-queue.ts';
import { loadConfig } from './config.ts';
import type { Adapters } from './services.ts';
import { systemClock } from '#ports/clock.ts';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { JwtTokenVerifier } from '#adapters/jwt/jwt-token-verifier.ts';
import { HttpPageChecker } from '#adapters/http-page-checker/http-page-checker.ts';
import { TimestreamReportStore } from '#adapters/timestream/timestream-report-store.ts';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoImportJobs } from '#adapters/dynamodb/import-jobs.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { SimpleAnalyticsClient } from '#adapters/simpleanalytics/simpleanalytics-client.ts';

export async function createAwsAdapters(): Promise<Adapters> {
  const config = loadConfig();
  if (!config.auth) throw new Error('AUTH_ISSUER is required on AWS');
  return {
    config,
    clock: systemClock,
    registry: new DynamoRegistry(new DynamoDBClient({}), config.tableName),
    tokens: new JwtTokenVerifier(config.auth),
    pageChecker: new HttpPageChecker({ urlTemplate: config.verifyUrlTemplate, allowPrivateAddresses: config.verifyAllowPrivateAddresses }),
    publicOrigins: config.publicUrls ?? [],
    eventQueue: new SqsQueue(new SQSClient({}), config.eventQueueUrl ?? ''),
    // Inlined at bundling time by the stack (esbuild define): Lambda has no esbuild to build it.
    trackerScript: process.env.TT_TRACKER_JS ?? '',
    // Set only on the functions that may read the event store (lib/api.ts GROUP_ACCESS); others never query it.
    reports: new TimestreamReportStore(new TimestreamQueryClient({}), process.env.TIMESTREAM_DATABASE ?? '', process.env.TIMESTREAM_TABLE ?? ''),
    // Imports (issue 5): jobs in the table, chunks on SQS, credentials under a KMS envelope.
    importJobs: new DynamoImportJobs(new DynamoDBClient({}), config.tableName),
    importQueue: new SqsQueue(new SQSClient({}), config.importQueueUrl ?? ''),
    secrets: new KmsSecretBox(new KMSClient({}), config.importKmsKeyId ?? ''),
    importSource: new SimpleAnalyticsClient({ baseUrl: config.simpleAnalyticsBaseUrl, credentialTimeoutMs: config.importCredentialTimeoutMs }),
  };
}
