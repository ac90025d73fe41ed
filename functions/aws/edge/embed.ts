/** Lambda entry of the embeddable share view on AWS: the registry's share links and sites, and the page inlined at bundling. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { awsClient } from '#aws/clients.ts';
import { createEmbedHandler } from '#http/handlers/embed.ts';
import { systemClock } from '#ports/clock.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';
import { siteCaches } from '#platform/instance-state.ts';

const config = loadConfig(lambdaEnv());

export const handler = createEmbedHandler({
  registry: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName),
  clock: systemClock,
  ...siteCaches(systemClock),
  page: required(config, 'dashboardPage'),
  // Owners sign in with an OIDC issuer on AWS (Cognito or the configured one): the page's CSP allows its https endpoints.
  signIn: { type: 'oidc' },
});
