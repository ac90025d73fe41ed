/** Product API conventions over HTTP (spec part 4 "Conventions", part 7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { findRoute, routeKey, routes } from '#http/routes.ts';
import { groupHandlers } from '#http/handlers/index.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.stop());

const concrete = (path: string) => path.replace(/\{hostname\}/g, 'some-site.example').replace(/\{id\}/g, 'some-id');

describe('conventions', () => {
  it('answers OPTIONS on every path with the empty 204 preflight', async () => {
    for (const path of [...routes.map((r) => concrete(r.path)), '/nowhere', '/append', '/latest.js', '/']) {
      const r = await svc.req('OPTIONS', path, { headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' } });
      expect(r.status, path).toBe(204);
      expect(r.text).toBe('');
      expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
      expect(r.headers.get('access-control-allow-headers')).toBe('Content-Type');
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('carries no CORS headers on product responses', async () => {
    const token = await svc.token('alice');
    const r = await svc.req('GET', '/api/sites', { token, headers: { origin: 'https://elsewhere.example' } });
    expect(r.status).toBe(200);
    expect([...r.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });

  it('answers unmatched product routes with 404 not found and no-store', async () => {
    const token = await svc.token('alice');
    for (const [method, path] of [['GET', '/api/unknown'], ['POST', '/api/sites/x.example/nothing'], ['PUT', '/api/sites'], ['GET', '/nowhere']] as const) {
      const r = await svc.req(method, path, { token });
      expect([r.status, r.json], `${method} ${path}`).toEqual([404, { error: 'not found' }]);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('answers a product body past the 1 MiB cap with a JSON 413 and no CORS headers', async () => {
    const token = await svc.token('alice');
    const r = await svc.req('POST', '/api/sites', { token, raw: JSON.stringify({ hostname: 'big.example', pad: 'x'.repeat(1024 * 1024) }) });
    expect([r.status, r.json]).toEqual([413, { error: 'request body too large' }]);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect([...r.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
  });

  it('serves /healthz: GET ok, HEAD empty, other methods 400', async () => {
    const g = await svc.req('GET', '/healthz');
    expect([g.status, g.text, g.headers.get('content-type')]).toEqual([200, 'ok', 'text/plain; charset=utf-8']);
    const h = await svc.req('HEAD', '/healthz');
    expect([h.status, h.text]).toEqual([200, '']);
    for (const m of ['PUT', 'POST', 'DELETE', 'PATCH']) expect((await svc.req(m, '/healthz')).status).toBe(400);
  });

  it('answers 500 internal error without details when the registry fails', async () => {
    const token = await svc.token('alice');
    const registry = svc.node.services.registry;
    const original = registry.listSites.bind(registry);
    registry.listSites = async () => {
      throw new Error('secret connection string leaked');
    };
    try {
      const r = await svc.req('GET', '/api/sites', { token });
      expect([r.status, r.json]).toEqual([500, { error: 'internal error' }]);
      expect(r.text).not.toContain('secret');
    } finally {
      registry.listSites = original;
    }
  });

  it('serves an OpenAPI 3.1 document that describes every route', async () => {
    const r = await svc.req('GET', '/api/openapi.json');
    expect(r.json.openapi).toBe('3.1.0');
    for (const route of routes) {
      const methods = route.method === 'ANY' ? ['get'] : [route.method.toLowerCase()];
      for (const m of methods) expect(r.json.paths[route.path]?.[m]?.summary, `${route.method} ${route.path}`).toEqual(expect.any(String));
    }
  });
});

describe('the Lambda event path and the local edge', () => {
  /** The API Gateway v2 event the stack would hand the group's Lambda for this request. */
  function lambdaEvent(method: string, pathAndQuery: string, headers: Record<string, string>, body?: string) {
    const url = new URL(pathAndQuery, 'http://local');
    const match = findRoute(method, url.pathname);
    return {
      group: match.route ? match.route.group : ('meta' as const),
      event: {
        version: '2.0',
        routeKey: match.route ? routeKey(match.route) : '$default',
        rawPath: url.pathname,
        rawQueryString: url.search.slice(1),
        headers,
        pathParameters: match.route ? match.params : undefined,
        requestContext: { http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: headers['user-agent'] ?? '' }, routeKey: '$default', stage: '$default' },
        body: body === undefined ? undefined : Buffer.from(body).toString('base64'),
        isBase64Encoded: body !== undefined,
      } as unknown as APIGatewayProxyEventV2,
    };
  }

  it('answer every kind of request alike: routes, parameters, preflight, 404, auth and validation errors, GIFs', async () => {
    const token = await svc.token('edge-owner');
    const site = await svc.site(token, { prefix: 'edge' });
    const auth = { authorization: `Bearer ${token}`, 'user-agent': 'Mozilla/5.0 Firefox/125.0' };
    const cases: [string, string, Record<string, string>, string?][] = [
      ['GET', '/api/sites', auth],
      ['GET', `/api/sites/${site}`, auth],
      ['GET', `/api/sites/${site}/overview?from=1&to=2&tz=Nowhere/Land`, auth],
      ['GET', '/api/sites', {}],
      ['OPTIONS', '/api/sites', {}],
      ['GET', '/api/unknown', auth],
      ['POST', '/api/sites', auth, '{"hostname":'],
      ['POST', '/events', auth, '{"hostname":"unknown-site.example","path":"/"}'],
      ['POST', '/events', auth, 'not json'],
      ['GET', '/simple.gif?hostname=unknown-site.example&event=click', auth],
      ['GET', '/healthz', {}],
    ];
    for (const [method, path, headers, body] of cases) {
      const overHttp = await svc.req(method, path, { headers, raw: body });
      const { group, event } = lambdaEvent(method, path, headers, body);
      const answer = await groupHandlers[group](event, {} as Context);
      // Read as the HTTP client reads it: bytes decoded as UTF-8.
      const answerBody = answer.isBase64Encoded ? Buffer.from(answer.body ?? '', 'base64').toString('utf8') : (answer.body ?? '');
      const label = `${method} ${path}`;
      expect(answer.statusCode, label).toBe(overHttp.status);
      expect(answerBody, label).toBe(overHttp.text);
      for (const [name, value] of Object.entries(answer.headers)) expect(overHttp.headers.get(name), `${label}: ${name}`).toBe(value);
    }
  });
});
