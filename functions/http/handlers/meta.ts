/** Route group `meta`: liveness, the API description, preflights and 404 for unmatched requests. */
import { createGroupHandler, json, text, type ApiRequest as AnyApiRequest } from '../api.ts';

/**
 * The API description as JSON text, built by the root: at bundling time for
 * Lambda (so the function carries no schema library), on first use locally.
 */
export interface MetaServices {
  apiDocument(): string;
}
type ApiRequest = AnyApiRequest<MetaServices>;

/** No storage or registry query: liveness only. */
async function healthz(req: ApiRequest) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(400, 'method not allowed');
  return text(200, 'ok');
}

async function openApiDocument(req: ApiRequest) {
  return { ...json(200, null), body: req.services.apiDocument() };
}

export const handler = createGroupHandler<MetaServices>({
  'ANY /healthz': healthz,
  'GET /api/openapi.json': openApiDocument,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/meta.ts). */
export const createMetaHandler = (services: MetaServices) => handler.lambda(services);
