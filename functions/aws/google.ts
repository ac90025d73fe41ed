/**
 * Google's OAuth client on AWS (issue 41): the client secret is read at start
 * from the Secrets Manager secret GOOGLE_CLIENT_SECRET_ARN names (its plain
 * text), never from the environment, where the Lambda console and any
 * principal allowed lambda:GetFunctionConfiguration would show it.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError, type Config } from '#platform/config.ts';
import type { GoogleSettings } from '#ports/search-console.ts';
import { awsClient } from './clients.ts';

/** Google's settings with the secret read now; unchanged (linking answers 501) when no client is set up. */
export async function awsGoogleSettings(config: Readonly<Config>, secrets: SecretsManagerClient = awsClient(SecretsManagerClient)): Promise<GoogleSettings> {
  const arn = config.googleClientSecretArn;
  if (!config.google.clientId || !arn) return { ...config.google, clientSecret: null };
  const text = (await secrets.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString?.trim() ?? '';
  // Never the secret's text: only what is wrong with it.
  if (text === '') throw new ConfigError('invalid configuration: the GOOGLE_CLIENT_SECRET_ARN secret must hold the OAuth client secret as plain text');
  return { ...config.google, clientSecret: text };
}
