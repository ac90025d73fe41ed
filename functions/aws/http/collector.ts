/**
 * Lambda entry of the `collector` route group: the site registry (sites and salts), the page checker
 * (automatic verification), the event queue and the tracker script. No
 * issuer, no event store, no imports.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoSiteRegistry } from '#adapters/dynamodb/registry.ts';
import { SqsQueue } from '#adapters/sqs/sqs-queue.ts';
import { createCollectorHandler } from '#http/handlers/collector.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { systemClock } from '#ports/clock.ts';
import { awsClient } from '#aws/clients.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';
import { pageCheckerFor } from '#platform/page-checker.ts';
import { collectorState } from '#platform/collector-state.ts';
import { siteCaches } from '#platform/instance-state.ts';

const config = loadConfig(lambdaEnv());
const trackerScript = required(config, 'trackerScript');

export const handler = createCollectorHandler({
  clock: systemClock,
  registry: DynamoSiteRegistry.over(awsClient(DynamoDBClient), config.tableName),
  pageChecker: pageCheckerFor(config, trackerScript),
  publicOrigins: config.publicUrls ?? [],
  eventQueue: new SqsQueue<EventRow>(awsClient(SQSClient), required(config, 'eventQueueUrl')),
  trackerScript,
  ...siteCaches(systemClock),
  ...collectorState(systemClock),
});
