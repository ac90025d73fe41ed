/** Product API conventions over HTTP (spec part 4 "Conventions", part 7). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/local-node.ts';
import { routes } from '#http/routes.ts';

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
