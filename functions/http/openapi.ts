/** The OpenAPI 3.1 description, generated from the route table and its zod schemas. */
import { z } from 'zod';
import { routes, type RouteDef } from './routes.ts';

const REVISION = '2026-10-04';

const schemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' });

/** GET-style routes (image beacons) take their request fields as query parameters. */
function requestAsQuery(route: RouteDef, method: string) {
  if (!route.request || (method !== 'get' && method !== 'head')) return [];
  const schema = schemaOf(route.request) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

function operation(route: RouteDef, method: string) {
  const inQuery = method === 'get' || method === 'head';
  const parameters = [
    ...requestAsQuery(route, method),
    ...[...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(route.query ?? {}).map(([name, description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } })),
  ];
  const responses = Object.fromEntries(
    Object.entries(route.responses).map(([status, r]) => [
      status,
      {
        description: r.description,
        ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: schemaOf(r.schema) } } } : {}),
      },
    ]),
  );
  const security =
    route.auth === 'none' ? [] : route.auth === 'site' ? [{}, { idToken: [] }, { managementKey: [] }] : route.auth === 'id_token' ? [{ idToken: [] }] : [{ idToken: [] }, { managementKey: [] }];
  return {
    operationId: `${method}${route.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    'x-route-group': route.group,
    ...(route.scope ? { 'x-scope': route.scope } : {}),
    parameters,
    ...(route.request && !inQuery ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.request) } } } } : {}),
    responses,
    security,
  };
}

export function buildOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    const methods = route.method === 'ANY' ? ['get', 'head'] : [route.method.toLowerCase()];
    for (const m of methods) item[m] = operation(route, m);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'tinytrack', version: REVISION, description: 'Privacy-first web analytics: product API and collector.' },
    paths,
    components: {
      securitySchemes: {
        idToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Identity-provider ID token' },
        managementKey: { type: 'http', scheme: 'bearer', description: 'tt_mk_ + 48 lowercase hex' },
      },
    },
  };
}
