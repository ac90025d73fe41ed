/**
 * Lambda entry of the `ingest` route group (POST /api/ingest): sites and both
 * kinds of key from the registry, the event queue. No issuer (an ID token is
 * no ingest credential), no event store.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { SqsApiRequestQueue } from '#adapters/sqs/api-request-queue.ts';
import { SqsQueue } from '#adapters/sqs/sqs-queue.ts';
import { createIngestHandler } from '#http/handlers/ingest.ts';
import { systemClock } from '#ports/clock.ts';
import { awsClient } from '#aws/clients.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';
import { keyState, siteCaches } from '#platform/instance-state.ts';

const config = loadConfig(lambdaEnv());

export const handler = createIngestHandler({
  clock: systemClock,
  registry: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName),
  apiRequestQueue: new SqsApiRequestQueue(new SqsQueue(awsClient(SQSClient), required(config, 'eventQueueUrl'))),
  apiRequestsAvailable: config.apiRequestsAvailable,
  ...siteCaches(systemClock),
  ...keyState(systemClock),
});
