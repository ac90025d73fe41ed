/**
 * Lambda entry of the `meta` route group: liveness, and the API description inlined at bundling,
 * gzipped (a tenth of its 320 KiB of JSON) and opened once per instance.
 */
import { gunzipSync } from 'node:zlib';
import { createMetaHandler } from '#http/handlers/meta.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';

const apiDocument = gunzipSync(Buffer.from(required(loadConfig(lambdaEnv()), 'openApiGzip'), 'base64')).toString('utf8');

export const handler = createMetaHandler({ apiDocument: () => apiDocument });
