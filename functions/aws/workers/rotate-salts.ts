/** Lambda entry of the daily salt rotation: the registry alone (no issuer, no queues). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { awsClient } from '#aws/clients.ts';
import { loadConfig } from '#platform/config.ts';
import { systemClock } from '#ports/clock.ts';
import { createRotateSaltsHandler } from '#workers/rotate-salts.ts';

export const handler = createRotateSaltsHandler(new DynamoRegistry(awsClient(DynamoDBClient), loadConfig().tableName), systemClock);
