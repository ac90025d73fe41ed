/** Route group `meta`: liveness, the API description, preflights and 404 for unmatched requests. */
import { createGroupHandler, json, text, type ApiRequest } from '../api.ts';
import { buildOpenApi } from '../openapi.ts';

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

export const handler = createGroupHandler({
  'ANY /healthz': healthz,
  'GET /api/openapi.json': openApiDocument,
});
