/** Lambda entry of the `data` route group (issue 42): the registry, the issuer, and the event store's removal (ClickHouse; none on Timestream: 501). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createSiteDataHandler } from '#http/handlers/site-data.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { awsSiteData } from '#aws/event-store.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());

export const handler = createSiteDataHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  siteData: await awsSiteData(config),
});
