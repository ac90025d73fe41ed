/**
 * The routing cases (test/support/route-cases.ts) against every entry that
 * chooses a route: the matcher, the route table's findRoute, the local edge
 * over HTTP, and a group handler answering Function URL events.
 */
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createRouteMatcher, parseRouteKey } from '#http/route-match.ts';
import { createGroupHandler, text, type ApiResponse, type GroupHandler } from '#http/api.ts';
import { findRoute, routeKey, routes, type RouteGroup } from '#http/routes.ts';
import { createLocalServer } from '#local/http-server.ts';
import type { Services } from '#platform/services.ts';
import { functionUrlEvent } from '../support/lambda-events.ts';
import { runRouteCases, TABLE_CASE, type Matched } from '../support/route-cases.ts';

/** A group handler whose every route answers with its own key and the params it was given. */
function echoGroup(keys: readonly string[]): GroupHandler<unknown> {
  const echo = (key: string) => async (req: { params: Record<string, string> }) => text(200, '', { 'x-route': key, 'x-params': JSON.stringify(req.params) });
  return createGroupHandler(Object.fromEntries(keys.map((key) => [key, echo(key)])), { requestLogLevel: 'debug' });
}

const echoed = (status: number, header: (name: string) => string | null | undefined): Matched => {
  const key = header('x-route');
  if (!key) {
    expect(status).toBe(404);
    return null;
  }
  return { key, params: JSON.parse(header('x-params') ?? '{}') };
};

runRouteCases('createRouteMatcher', async (keys) => {
  const match = createRouteMatcher(keys.map((key) => ({ key, ...parseRouteKey(key) })));
  return {
    match: async (method, path) => {
      const m = match(method, path);
      return m.route ? { key: m.route.key, params: m.params } : null;
    },
  };
});

runRouteCases(
  'findRoute (the route table)',
  async () => ({
    match: async (method, path) => {
      const m = findRoute(method, path);
      return m.route ? { key: routeKey(m.route), params: m.params } : null;
    },
  }),
  [TABLE_CASE],
);

runRouteCases('a group handler, from a Function URL event', async (keys) => {
  const handler = echoGroup(keys);
  return {
    match: async (method, path) => {
      const answer: ApiResponse = await handler.lambda({})(functionUrlEvent({ method, url: path }), {} as Context);
      return echoed(answer.statusCode, (name) => answer.headers[name]);
    },
  };
});

runRouteCases('the local edge over HTTP', async (keys) => {
  const table = keys.map((key) => ({ ...parseRouteKey(key), group: routes.find((r) => routeKey(r) === key)?.group ?? ('meta' as RouteGroup) }));
  const byGroup = (group: RouteGroup) => table.filter((r) => r.group === group).map(routeKey);
  const groups = Object.fromEntries((['meta', 'account', 'sites', 'collector', 'reports', 'imports'] as const).map((g) => [g, echoGroup(byGroup(g))])) as Record<RouteGroup, GroupHandler>;
  const server = createLocalServer({ groups, trustedProxies: 0, routes: table, services: {} as Services /* the echo groups read none */ });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    match: async (method, path) => {
      const r = await fetch(base + path, { method });
      await r.arrayBuffer();
      return echoed(r.status, (name) => r.headers.get(name));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});

describe('findRoute without a route', () => {
  it('says whether the path had a route for another method', () => {
    expect(findRoute('PUT', '/api/sites')).toEqual({ route: null, pathMatched: true });
    expect(findRoute('PUT', '/api/sites/a.example')).toEqual({ route: null, pathMatched: true });
    expect(findRoute('GET', '/api/nowhere')).toEqual({ route: null, pathMatched: false });
  });
});
