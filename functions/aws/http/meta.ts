/** Lambda entry of the `meta` route group: liveness, and the API description inlined at bundling. */
import { createMetaHandler } from '#http/handlers/meta.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';

const apiDocument = required(loadConfig(lambdaEnv()), 'openApiJson');

export const handler = createMetaHandler({ apiDocument: () => apiDocument });
