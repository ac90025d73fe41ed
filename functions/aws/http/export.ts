/**
 * Lambda entry of the `export` route group (issue 42), a response-streaming function behind its own
 * Function URL (lib/api.ts): the registry (sites, keys), the issuer, and the event store's reader.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { handler as exportGroup } from '#http/handlers/export.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { awsRowExport } from '#aws/event-store.ts';
import { streamingHandler } from '#aws/streaming.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());

export const handler = streamingHandler(exportGroup, {
  ...authServices(config, awsClient(DynamoDBClient)),
  rowExport: await awsRowExport(config),
  apiRequestsAvailable: config.apiRequestsAvailable,
  config,
});
