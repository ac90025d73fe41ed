/** Lambda entry of the `digests` route group: the registry, the issuer, the event store's readers, the mailer of test sends, and the public origin of links. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDigestsHandler } from '#http/handlers/digests.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { awsReportStores } from '#aws/event-store.ts';
import { awsMailer } from '#aws/mailer.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());

export const handler = createDigestsHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  ...(await awsReportStores(config)),
  mailer: awsMailer(config),
  publicOrigins: config.publicUrls ?? [],
});
