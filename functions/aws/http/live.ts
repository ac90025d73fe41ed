/**
 * Lambda entry of the `live` route group, a response-streaming function behind its own Function
 * URL (lib/api.ts): the registry (tickets, stream slots), the issuer, and the event store's reader.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { handler as live } from '#http/handlers/live.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { awsReportStores } from '#aws/event-store.ts';
import { streamingHandler } from '#aws/streaming.ts';
import { systemTimers } from '#workers/rotate-salts.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());

export const handler = streamingHandler(live, {
  ...authServices(config, awsClient(DynamoDBClient)),
  ...(await awsReportStores(config)),
  timers: systemTimers,
});
