/** Product API conventions over HTTP (spec part 4 "Conventions", part 7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import type { Context } from 'aws-lambda';
import { findRoute, routeKey, routes } from '#http/routes.ts';
import { groupHandlers } from '#http/handlers/index.ts';
import { functionUrlEvent, httpApiEvent } from '../support/lambda-events.ts';

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
  /** The group whose Lambda a route key reaches; `$default` (no route) goes to meta. */
  const groupOf = (key: string) => routes.find((r) => routeKey(r) === key)?.group ?? 'meta';

  it('answer every kind of request alike: routes, parameters, preflight, 404, auth and validation errors, GIFs', async () => {
    const token = await svc.token('edge-owner');
    const site = await svc.site(token, { prefix: 'edge' });
    const auth = { authorization: `Bearer ${token}`, 'user-agent': 'Mozilla/5.0 Firefox/125.0' };
    // The route API Gateway picks is written down here, not asked of the code under test.
    const cases: [method: string, url: string, route: string, headers: Record<string, string>, body?: string][] = [
      ['GET', '/api/sites', 'GET /api/sites', auth],
      ['GET', `/api/sites/${site}`, 'GET /api/sites/{hostname}', auth],
      ['GET', '/api/sites/summary', 'GET /api/sites/summary', auth],
      ['GET', `/api/sites/${site}/overview?from=1&to=2&tz=Nowhere/Land`, 'GET /api/sites/{hostname}/overview', auth],
      ['DELETE', '/api/management-keys/self', 'DELETE /api/management-keys/self', auth],
      ['GET', '/api/sites', 'GET /api/sites', {}],
      ['OPTIONS', '/api/sites', '$default', {}],
      ['GET', '/api/unknown', '$default', auth],
      ['PUT', '/api/sites', '$default', auth],
      ['POST', '/api/sites', 'POST /api/sites', auth, '{"hostname":'],
      ['POST', '/events', 'POST /events', auth, '{"hostname":"unknown-site.example","path":"/"}'],
      ['POST', '/events', 'POST /events', auth, 'not json'],
      ['GET', '/simple.gif?hostname=unknown-site.example&event=click', 'ANY /simple.gif', auth],
      ['GET', '/healthz', 'ANY /healthz', {}],
    ];
    for (const [method, url, route, headers, body] of cases) {
      const overHttp = await svc.req(method, url, { headers, raw: body });
      expect(findRoute(method, new URL(url, 'http://local').pathname).route?.group ?? 'meta', `${method} ${url}: the edge's group`).toBe(groupOf(route));
      const request = { method, url, headers, body, base64: body !== undefined };
      // API Gateway names the route; a Function URL on the same group's function leaves the handler to match it.
      for (const [via, event] of [['HTTP API', httpApiEvent(route, request)], ['Function URL', functionUrlEvent(request)]] as const) {
        const answer = await groupHandlers[groupOf(route)].lambda(svc.node.services)(event, {} as Context);
        // Read as the HTTP client reads it: bytes decoded as UTF-8.
        const answerBody = answer.isBase64Encoded ? Buffer.from(answer.body ?? '', 'base64').toString('utf8') : (answer.body ?? '');
        const label = `${method} ${url} (${via})`;
        expect(answer.statusCode, label).toBe(overHttp.status);
        expect(answerBody, label).toBe(overHttp.text);
        for (const [name, value] of Object.entries(answer.headers)) expect(overHttp.headers.get(name), `${label}: ${name}`).toBe(value);
      }
    }
  });
});
