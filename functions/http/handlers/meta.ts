/** Route group `meta`: liveness, the API description, preflights and 404 for unmatched requests. */
import { createGroupHandler, json, text, type ApiRequest as AnyApiRequest } from '../api.ts';
import { buildOpenApi } from '../openapi.ts';

/** Liveness and the API description read nothing of the instance. */
export type MetaServices = Record<never, never>;
type ApiRequest = AnyApiRequest<MetaServices>;

let openApi: string | null = null;

/** No storage or registry query: liveness only. */
async function healthz(req: ApiRequest) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(400, 'method not allowed');
  return text(200, 'ok');
}

async function openApiDocument() {
  openApi ??= JSON.stringify(buildOpenApi());
  return { ...json(200, null), body: openApi };
}

export const handler = createGroupHandler<MetaServices>({
  'ANY /healthz': healthz,
  'GET /api/openapi.json': openApiDocument,
});

/** The group's Lambda handler over what its composition root built (functions/http/lambda/meta.ts). */
export const createMetaHandler = (services: MetaServices) => handler.lambda(services);
