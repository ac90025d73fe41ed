import { describe, expect, it } from 'vitest';
import { findRoute, matchPath, routeKey, routes } from '#http/routes.ts';
import { groupHandlers } from '#http/handlers/index.ts';

describe('route table', () => {
  it('has a handler for every route in its group, and no handler without a route', () => {
    for (const [group, handler] of Object.entries(groupHandlers)) {
      const declared = routes.filter((r) => r.group === group).map(routeKey).sort();
      expect(Object.keys(handler.routes).sort(), group).toEqual(declared);
    }
  });

  it('has unique route keys', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('prefers literal segments over parameters', () => {
    const m = findRoute('DELETE', '/api/management-keys/self');
    expect(m.route && routeKey(m.route)).toBe('DELETE /api/management-keys/self');
    const p = findRoute('DELETE', '/api/management-keys/abc');
    expect(p.route && p.params).toEqual({ id: 'abc' });
  });

  it('matches parameters as one decoded segment and nothing else', () => {
    expect(matchPath('/api/sites/{hostname}', '/api/sites/xn--caf-dma.example')).toEqual({ hostname: 'xn--caf-dma.example' });
    expect(matchPath('/api/sites/{hostname}', '/api/sites/')).toBeNull();
    expect(matchPath('/api/sites/{hostname}', '/api/sites/a/b')).toBeNull();
    expect(matchPath('/api/sites/{hostname}', '/api/sites/%E0%A4%A')).toBeNull();
    expect(findRoute('PUT', '/api/sites')).toEqual({ route: null, pathMatched: true });
  });
});

describe('Function URL dispatch', () => {
  it('matches a request without a route key against the group’s own keys', async () => {
    const { matchRouteKey } = await import('#http/route-match.ts');
    const keys = ['ANY /latest.js', 'POST /events', 'GET /api/sites/{hostname}'];
    expect(matchRouteKey(keys, 'HEAD', '/latest.js')).toEqual({ key: 'ANY /latest.js', params: {} });
    expect(matchRouteKey(keys, 'POST', '/events')).toEqual({ key: 'POST /events', params: {} });
    expect(matchRouteKey(keys, 'GET', '/events')).toBeNull();
    expect(matchRouteKey(keys, 'GET', '/api/sites/a.example')).toEqual({ key: 'GET /api/sites/{hostname}', params: { hostname: 'a.example' } });
  });
});
