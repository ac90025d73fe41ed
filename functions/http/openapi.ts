/**
 * The OpenAPI 3.1 description, generated from the route table and its zod
 * schemas. Every named schema is one `components/schemas` entry, referred to as
 * `#/components/schemas/<id>`; error answers list their exact texts as examples.
 */
import { z } from 'zod';
import { NotFoundError } from '#domain/errors.ts';
import { FAILURE_RESPONSES, routes, type ResponseDef, type RouteDef, type RouteGroup } from './routes.ts';

const REVISION = '2026-10-04';
const COMPONENTS = '#/components/schemas/';
const REQUIRED = 'Required: ';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[]; description?: string };

/** A route's answers and the failures every product route may give, the texts of a status both name kept together. */
function withFailures(responses: Record<number, ResponseDef>): Record<number, ResponseDef> {
  const out = { ...responses };
  for (const [status, failure] of Object.entries(FAILURE_RESPONSES)) {
    const own = out[Number(status)];
    const errors = [...(own?.errors ?? []), ...(failure.errors ?? [])];
    out[Number(status)] = own ? { ...failure, ...own, errors, description: errors.join('; '), headers: { ...failure.headers, ...own.headers } } : failure;
  }
  return out;
}

const TAGS: Record<RouteGroup, string> = {
  meta: 'Liveness and this document',
  account: 'The caller and management keys',
  sites: 'Registering, configuring and verifying sites',
  collector: 'The tracker script and beacons (no credentials; plain-text answers)',
  reports: 'Traffic reports',
  imports: 'Historical imports from another analytics service',
  alerts: 'Alert rules checked every minute, mailed when they fire and resolve',
  ingest: 'API request metrics from your own API (site API keys or an ingest management key)',
  goals: 'Goals and ordered funnels over visitor-days, with their stats',
  digests: 'E-mail reports of a site, report defaults and the workspace digest, mailed at 07:00 local',
  live: 'The live visitor stream (Server-Sent Events; ID token only)',
  search: 'Google Search Console: linking a property and its figures',
  crawlers: 'AI and search crawler hits read hourly from a linked Cloudflare zone',
  data: "Erasing a site's stored rows (the daily retention purge is set on the site: retention_months)",
  export: "The owner's export of a site's raw rows (CSV or NDJSON, streamed; never a visitor hash)",
};

const PATH_PARAMETERS: Record<string, string> = {
  hostname: 'The normalized hostname, as registered',
  id: 'The id of the record the path names: a management key, a site API key, an alert rule, a goal, a funnel or an e-mail report',
  name: 'An event name, normalized as collected (spec part 6 rule 3)',
  jobId: 'An import job id',
};

const DESCRIPTION = [
  'Privacy-first web analytics: product API and collector.',
  '',
  'Credentials: `Authorization: Bearer <token>` with an identity-provider ID token or a management key (`tt_mk_…`).',
  `Every path answers \`OPTIONS\` with an empty 204 preflight. Product requests that match no route answer 404 \`${JSON.stringify({ error: NotFoundError.text })}\`.`,
  'JSON errors are `{"error": <text>}` with `Cache-Control: no-store`; each error response lists its texts as examples. Collector errors are plain text.',
].join('\n');

/** Every schema with an id, referring to each other through `#/components/schemas/<id>`. */
function componentSchemas(): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', unrepresentable: 'any', uri: (id) => COMPONENTS + id });
  // Unnamed schemas are inlined; shared definitions would only appear for a cycle through an unnamed schema.
  if ('__shared' in schemas) throw new Error('OpenAPI: a recursive schema needs an id');
  // Each entry is a component, not a standalone document: no $id, no $schema.
  return Object.fromEntries(Object.entries(schemas).map(([id, { $id: _id, $schema: _schema, ...schema }]) => [id, schema as JsonSchema]));
}

function idOf(schema: z.ZodType, where: string): string {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error(`OpenAPI: the schema of ${where} needs .meta({ id })`);
  return id;
}

const refTo = (schema: z.ZodType, where: string) => ({ $ref: COMPONENTS + idOf(schema, where) });

/** GET-style routes (image beacons) take their request fields as query parameters; an object field is URL-encoded JSON. */
function requestAsQuery(route: RouteDef, components: Record<string, JsonSchema>) {
  if (!route.request) return [];
  const schema = components[idOf(route.request, route.path)] as JsonSchema;
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    ...(property.type === 'object' ? { content: { 'application/json': { schema: property } } } : { schema: property }),
  }));
}

const exampleName = (text: string) => text.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'error';

function response(r: ResponseDef, where: string) {
  const media = r.schema
    ? { schema: refTo(r.schema, where), ...(r.errors ? { examples: Object.fromEntries(r.errors.map((error) => [exampleName(error), { value: { error } }])) } : {}) }
    : {};
  return {
    description: r.description,
    ...(r.headers ? { headers: Object.fromEntries(Object.entries(r.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) } : {}),
    ...(r.schema || r.contentType ? { content: { [r.contentType ?? 'application/json']: media } } : {}),
  };
}

function security(route: RouteDef) {
  switch (route.auth) {
    case 'none':
      return [];
    case 'site':
      return [{}, { idToken: [] }, { managementKey: [] }];
    case 'id_token':
    case 'user':
      return [{ idToken: [] }];
    case 'account':
    case 'owner':
      return [{ idToken: [] }, { managementKey: [] }];
    case 'api_key':
      return [{ siteApiKey: [] }, { managementKey: [] }];
  }
}

function operation(route: RouteDef, method: string, components: Record<string, JsonSchema>) {
  const where = `${method.toUpperCase()} ${route.path}`;
  const inQuery = method === 'get' || method === 'head';
  const parameters = [
    ...(inQuery ? requestAsQuery(route, components) : []),
    ...[...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, description: PATH_PARAMETERS[name as string], schema: { type: 'string' } })),
    ...Object.entries(route.query ?? {}).map(([name, description]) => ({
      name,
      in: 'query',
      required: description.startsWith(REQUIRED),
      description: description.replace(REQUIRED, ''),
      schema: { type: 'string' },
    })),
  ];
  const declared = route.path.startsWith('/api/') ? withFailures(route.responses) : route.responses;
  return {
    operationId: `${method}${route.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: route.summary,
    tags: [route.group],
    ...(route.scope ? { 'x-scope': route.scope } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.request && !inQuery ? { requestBody: { required: true, content: { 'application/json': { schema: refTo(route.request, where) } } } } : {}),
    responses: Object.fromEntries(Object.entries(declared).map(([status, r]) => [status, response(r, where)])),
    security: security(route),
  };
}

/** Components reachable from `root`: named schemas nothing refers to are left out. */
function reachable(root: unknown, components: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENTS)) {
        const id = value.slice(COMPONENTS.length);
        if (!used.has(id)) {
          used.add(id);
          visit(components[id]);
        }
      } else visit(value);
    }
  };
  visit(root);
  return Object.fromEntries(Object.keys(components).filter((id) => used.has(id)).sort().map((id) => [id, components[id] as JsonSchema]));
}

export function buildOpenApi(): Record<string, unknown> {
  const components = componentSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    const methods = route.method === 'ANY' ? ['get', 'head'] : [route.method.toLowerCase()];
    for (const m of methods) item[m] = operation(route, m, components);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'tinytrack', version: REVISION, description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/', description: 'The origin serving this document' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: reachable(paths, components),
      securitySchemes: {
        idToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Identity-provider ID token' },
        managementKey: { type: 'http', scheme: 'bearer', description: 'tt_mk_ + 48 lowercase hex' },
        siteApiKey: { type: 'http', scheme: 'bearer', description: 'tt_ + 48 lowercase hex: POST /api/ingest for its own site only' },
      },
    },
  };
}
