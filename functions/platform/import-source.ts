/** The Simple Analytics export client as configured, for the imports routes and the import worker. */
import { SimpleAnalyticsClient, type SimpleAnalyticsClientOptions } from '#adapters/simpleanalytics/simpleanalytics-client.ts';
import type { Config } from './config.ts';

export function importSourceFor(config: Readonly<Config>, options: Partial<SimpleAnalyticsClientOptions> = {}): SimpleAnalyticsClient {
  return new SimpleAnalyticsClient({ baseUrl: config.simpleAnalyticsBaseUrl, credentialTimeoutMs: config.importCredentialTimeoutMs, ...options });
}
