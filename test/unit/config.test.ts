/** Configuration parsing: settings the service refuses to start with. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#platform/config.ts';

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
