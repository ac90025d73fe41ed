/** Lambda entry of the `sites` route group: the registry, the issuer, the page checker (with the tracker build) and the icon bucket. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { S3IconStore } from '#adapters/s3/s3-icon-store.ts';
import { createSitesHandler } from '#http/handlers/sites.ts';
import { systemClock } from '#ports/clock.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';
import { log } from '#platform/log.ts';
import { pageCheckerFor } from '#platform/page-checker.ts';
import { checkState, verifyState } from '#platform/instance-state.ts';

const config = loadConfig(lambdaEnv());

export const handler = createSitesHandler({
  config,
  ...authServices(config, awsClient(DynamoDBClient)),
  ...verifyState(systemClock),
  ...checkState(systemClock),
  // A proxied /latest.js verifies only when it serves this build (inlined as the collector's).
  pageChecker: pageCheckerFor(config, required(config, 'trackerScript')),
  publicOrigins: config.publicUrls ?? [],
  icons: new S3IconStore(awsClient(S3Client), required(config, 'iconBucket')),
  log,
  // The collector's drops stay in its own function: setup says so rather than show an empty list.
  recentDrops: null,
});
