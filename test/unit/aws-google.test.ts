/**
 * Google's OAuth client on AWS: the client secret comes from the Secrets
 * Manager secret GOOGLE_CLIENT_SECRET_ARN names (mocked: no local
 * equivalent; locally GOOGLE_CLIENT_SECRET is read as the integration tests
 * against the fake Google do).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { awsGoogleSettings } from '#aws/google.ts';
import { loadConfig } from '#platform/config.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-google-MnOpQr';
const secrets = mockClient(SecretsManagerClient);
const client = () => new SecretsManagerClient({});

beforeEach(() => secrets.reset());

describe('Google’s client secret on AWS', () => {
  it('is read from the secret the ARN names, and only from there', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: ARN }).resolves({ SecretString: 'from-the-secret\n' });
    const settings = await awsGoogleSettings(loadConfig({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'from-env', GOOGLE_CLIENT_SECRET_ARN: ARN }), client());
    expect([settings.clientId, settings.clientSecret]).toEqual(['id', 'from-the-secret']);
  });

  it('leaves Google unconfigured without a client id or an ARN, reading no secret', async () => {
    expect((await awsGoogleSettings(loadConfig({ GOOGLE_CLIENT_SECRET_ARN: ARN }), client())).clientSecret).toBeNull();
    expect((await awsGoogleSettings(loadConfig({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'from-env' }), client())).clientSecret).toBeNull();
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });

  it('refuses an empty secret without quoting it', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '  ' });
    await expect(awsGoogleSettings(loadConfig({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET_ARN: ARN }), client())).rejects.toThrow('must hold the OAuth client secret');
  });
});
