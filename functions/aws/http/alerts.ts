/** Lambda entry of the `alerts` route group: the registry, the issuer and the mailer of test sends. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createAlertsHandler } from '#http/handlers/alerts.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { awsMailer } from '#aws/mailer.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';
import { alertsUrlOf } from '#domain/alerts/alert-mail.ts';

const config = loadConfig(lambdaEnv());

export const handler = createAlertsHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  mailer: awsMailer(config),
  alertsUrl: alertsUrlOf(config.publicUrls?.[0]),
});
