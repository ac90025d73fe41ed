/** Lambda entry of the `goals` route group: the registry, the issuer and the event store's reader. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createGoalsHandler } from '#http/handlers/goals.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { awsReportStores } from '#aws/event-store.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());

export const handler = createGoalsHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  ...(await awsReportStores(config)),
});
