/** Lambda entry of the `meta` route group: liveness and the API description build nothing. */
import { createMetaHandler } from '#http/handlers/meta.ts';

export const handler = createMetaHandler({});
