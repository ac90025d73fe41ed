/** Lambda entry of the `sites` route group: the registry, the issuer and the page checker. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createSitesHandler } from '#http/handlers/sites.ts';
import { systemClock } from '#ports/clock.ts';
import { awsClient } from '#platform/aws-clients.ts';
import { authServices } from '#platform/aws-auth.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';
import { pageCheckerFor } from '#platform/page-checker.ts';
import { verifyState } from '#platform/instance-state.ts';

const config = loadConfig(lambdaEnv());

export const handler = createSitesHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  ...verifyState(systemClock),
  pageChecker: pageCheckerFor(config),
  publicOrigins: config.publicUrls ?? [],
  // The collector's drops stay in its own function: setup says so rather than show an empty list.
  recentDrops: null,
});
