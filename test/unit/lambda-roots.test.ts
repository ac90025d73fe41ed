/**
 * Each Lambda entry (its composition root) reads its configuration once, at
 * import: with everything set it exports a handler; without a setting it
 * requires, the import fails naming the variable, so a misconfigured function
 * fails its init instead of its first request.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';

const ENV: Record<string, string> = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'tinytrack',
  AUTH_ISSUER: 'https://issuer.example/',
  AUTH_AUDIENCE: 'roots-test',
  EVENT_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/events',
  IMPORT_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/imports',
  IMPORT_KMS_KEY_ID: 'arn:aws:kms:eu-west-1:000000000000:key/roots-test',
  ICON_BUCKET: 'tinytrack-icons',
  TIMESTREAM_DATABASE: 'tinytrack',
  TIMESTREAM_TABLE: 'events',
  TT_TRACKER_JS: '/* latest.js */',
  TT_OPENAPI_GZ: gzipSync('{}').toString('base64'),
};

/** Each entry and the variables it cannot start without. */
const ENTRIES: [entry: string, required: string[]][] = [
  ['functions/aws/http/meta.ts', ['TT_OPENAPI_GZ']],
  ['functions/aws/http/account.ts', ['AUTH_ISSUER']],
  ['functions/aws/http/sites.ts', ['AUTH_ISSUER', 'ICON_BUCKET', 'TT_TRACKER_JS']],
  ['functions/aws/http/reports.ts', ['AUTH_ISSUER', 'TIMESTREAM_DATABASE']],
  ['functions/aws/http/collector.ts', ['EVENT_QUEUE_URL', 'TT_TRACKER_JS']],
  ['functions/aws/http/imports.ts', ['AUTH_ISSUER', 'IMPORT_QUEUE_URL', 'IMPORT_KMS_KEY_ID']],
  ['functions/aws/workers/event-writer.ts', ['TIMESTREAM_DATABASE']],
  ['functions/aws/workers/import-worker.ts', ['IMPORT_KMS_KEY_ID', 'TIMESTREAM_DATABASE']],
  ['functions/aws/workers/rotate-salts.ts', []],
];

/** The variables set for one import: ENV without `unset`. */
function stubEnv(unset: string | null): void {
  for (const [name, value] of Object.entries(ENV)) vi.stubEnv(name, name === unset ? '' : value);
  // TIMESTREAM_DATABASE alone would be refused as half a pair: unset both.
  if (unset === 'TIMESTREAM_DATABASE') vi.stubEnv('TIMESTREAM_TABLE', '');
}

const load = (entry: string) => import(/* @vite-ignore */ `../../${entry}`) as Promise<{ handler: unknown }>;

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('Lambda entries', () => {
  for (const [entry, required] of ENTRIES) {
    it(`${entry} starts with its settings and exports a handler`, async () => {
      stubEnv(null);
      expect(typeof (await load(entry)).handler).toBe('function');
    });
    for (const name of required) {
      it(`${entry} fails at start without ${name}, naming it`, async () => {
        stubEnv(name);
        const variable = name === 'TIMESTREAM_DATABASE' ? 'TIMESTREAM_DATABASE and TIMESTREAM_TABLE' : name;
        await expect(load(entry)).rejects.toThrow(`invalid configuration: ${variable} is required`);
      });
    }
  }
});
