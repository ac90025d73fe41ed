/** Configuration parsing: settings the service refuses to start with. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, required } from '#platform/config.ts';

describe('loadConfig', () => {
  it('refuses AUTH_ISSUER without AUTH_AUDIENCE (unset or empty), naming both in one line', () => {
    for (const env of [{ AUTH_ISSUER: 'https://id.example.com/' }, { AUTH_ISSUER: 'https://id.example.com/', AUTH_AUDIENCE: '' }]) {
      expect(() => loadConfig(env)).toThrow(new ConfigError('invalid configuration: AUTH_ISSUER needs AUTH_AUDIENCE (the client id its ID tokens are issued to)'));
    }
  });

  it('takes an issuer with its audience, the key set at the issuer’s well-known path by default', () => {
    expect(loadConfig({ AUTH_ISSUER: 'https://id.example.com/', AUTH_AUDIENCE: 'web' }).auth).toEqual({
      issuer: 'https://id.example.com/',
      audience: 'web',
      jwksUri: 'https://id.example.com/.well-known/jwks.json',
    });
  });

  it('reads TRUST_PROXY as the number of proxies trusted, 0 when unset; refuses anything else', () => {
    expect([loadConfig({}).trustedProxies, loadConfig({ TRUST_PROXY: '1' }).trustedProxies, loadConfig({ TRUST_PROXY: '2' }).trustedProxies]).toEqual([0, 1, 2]);
    for (const value of ['-1', '1.5', 'yes']) expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/^invalid configuration: TRUST_PROXY/);
  });

  it('uses the local issuer without AUTH_ISSUER', () => {
    expect(loadConfig({}).auth).toBeNull();
  });
});

describe('settings of the AWS entries', () => {
  it('reads the Timestream names as a pair and refuses one without the other', () => {
    expect(loadConfig({ TIMESTREAM_DATABASE: 'db', TIMESTREAM_TABLE: 'events' }).timestream).toEqual({ database: 'db', table: 'events' });
    expect(loadConfig({}).timestream).toBeNull();
    expect(() => loadConfig({ TIMESTREAM_DATABASE: 'db' })).toThrow(new ConfigError('invalid configuration: TIMESTREAM_DATABASE and TIMESTREAM_TABLE are set together'));
  });

  it('hands out a required setting, or refuses naming its variable', () => {
    const config = loadConfig({ EVENT_QUEUE_URL: 'https://sqs.example/q', TT_TRACKER_JS: 'js' });
    expect(required(config, 'eventQueueUrl')).toBe('https://sqs.example/q');
    expect(required(config, 'trackerScript')).toBe('js');
    expect(() => required(config, 'importQueueUrl')).toThrow(new ConfigError('invalid configuration: IMPORT_QUEUE_URL is required'));
    expect(() => required(config, 'importKmsKeyId')).toThrow(new ConfigError('invalid configuration: IMPORT_KMS_KEY_ID is required'));
    expect(() => required(config, 'openApiGzip')).toThrow(new ConfigError('invalid configuration: TT_OPENAPI_GZ is required'));
  });
});
