/**
 * One set of routing cases, run against every entry that chooses a route
 * (test/unit/route-match.test.ts): the matcher itself, the route table, the
 * local edge over HTTP and a group handler answering Function URL events. Each
 * case declares its routes in a given order; the answers must not depend on it.
 */
import { describe, expect, it } from 'vitest';
import { routeKey, routes } from '#http/routes.ts';
import { groupHandlers } from '#http/handlers/index.ts';

export type Matched = { key: string; params: Record<string, string> } | null;
export type MatchEntry = (method: string, path: string) => Promise<Matched>;

export interface RouteCase {
  name: string;
  /** Route keys (`METHOD /path`), in the order they are declared. */
  routes: readonly string[];
  expect: readonly (readonly [method: string, path: string, matched: Matched])[];
}

const to = (key: string, params: Record<string, string> = {}): Matched => ({ key, params });

export const ROUTE_CASES: readonly RouteCase[] = [
  {
    name: 'takes a literal segment before a parameter declared ahead of it',
    routes: ['DELETE /keys/{id}', 'DELETE /keys/self'],
    expect: [
      ['DELETE', '/keys/self', to('DELETE /keys/self')],
      ['DELETE', '/keys/k1', to('DELETE /keys/{id}', { id: 'k1' })],
    ],
  },
  {
    name: 'takes a literal segment before a parameter declared after it',
    routes: ['DELETE /keys/self', 'DELETE /keys/{id}'],
    expect: [
      ['DELETE', '/keys/self', to('DELETE /keys/self')],
      ['DELETE', '/keys/k1', to('DELETE /keys/{id}', { id: 'k1' })],
    ],
  },
  {
    name: 'lets the leftmost segment where two parameterised routes differ decide, whatever their order',
    routes: ['GET /sites/{hostname}/overview', 'GET /sites/summary/{part}', 'GET /sites/{hostname}/{report}'],
    expect: [
      ['GET', '/sites/summary/overview', to('GET /sites/summary/{part}', { part: 'overview' })],
      ['GET', '/sites/a.example/overview', to('GET /sites/{hostname}/overview', { hostname: 'a.example' })],
      ['GET', '/sites/a.example/breakdown', to('GET /sites/{hostname}/{report}', { hostname: 'a.example', report: 'breakdown' })],
    ],
  },
  {
    name: "takes the request's own method before ANY, declared in either order",
    routes: ['ANY /healthz', 'GET /healthz', 'ANY /things/{id}', 'DELETE /things/{id}', 'POST /ping', 'ANY /ping'],
    expect: [
      ['GET', '/healthz', to('GET /healthz')],
      ['POST', '/healthz', to('ANY /healthz')],
      ['HEAD', '/healthz', to('ANY /healthz')],
      ['DELETE', '/things/t1', to('DELETE /things/{id}', { id: 't1' })],
      ['PUT', '/things/t1', to('ANY /things/{id}', { id: 't1' })],
      ['POST', '/ping', to('POST /ping')],
      ['PATCH', '/ping', to('ANY /ping')],
    ],
  },
  {
    name: "lets a literal route of another method leave the path to a parameter route of the request's method",
    routes: ['GET /sites/summary', 'PATCH /sites/{hostname}'],
    expect: [
      ['PATCH', '/sites/summary', to('PATCH /sites/{hostname}', { hostname: 'summary' })],
      ['GET', '/sites/summary', to('GET /sites/summary')],
      ['GET', '/sites/a.example', null],
    ],
  },
  {
    name: 'takes a literal path before a parameter even when only ANY is declared there',
    routes: ['GET /things/{id}', 'ANY /things/all'],
    expect: [
      ['GET', '/things/all', to('ANY /things/all')],
      ['GET', '/things/t1', to('GET /things/{id}', { id: 't1' })],
      ['POST', '/things/t1', null],
    ],
  },
  {
    name: 'matches paths exactly: no trailing slash, case or extra segments, no empty parameter',
    routes: ['GET /sites', 'GET /sites/{hostname}'],
    expect: [
      ['GET', '/sites', to('GET /sites')],
      ['GET', '/sites/', null],
      ['GET', '/Sites', null],
      ['GET', '/sites/a.example/', null],
      ['GET', '/sites/a.example/more', null],
      ['GET', '/sites/a.example', to('GET /sites/{hostname}', { hostname: 'a.example' })],
    ],
  },
  {
    name: 'gives a parameter one URL-decoded segment and refuses a malformed escape',
    routes: ['GET /sites/{hostname}'],
    expect: [
      ['GET', '/sites/caf%C3%A9.example', to('GET /sites/{hostname}', { hostname: 'café.example' })],
      ['GET', '/sites/a%2Fb', to('GET /sites/{hostname}', { hostname: 'a/b' })],
      ['GET', '/sites/%E0%A4%A', null],
    ],
  },
  {
    name: 'answers no route for a method no route of the path declares',
    routes: ['GET /sites', 'POST /sites'],
    expect: [
      ['PUT', '/sites', null],
      ['DELETE', '/sites', null],
      ['POST', '/sites', to('POST /sites')],
    ],
  },
  {
    name: 'fills several parameters',
    routes: ['POST /sites/{hostname}/imports', 'POST /sites/{hostname}/imports/{jobId}/cancel'],
    expect: [
      ['POST', '/sites/a.example/imports/j1/cancel', to('POST /sites/{hostname}/imports/{jobId}/cancel', { hostname: 'a.example', jobId: 'j1' })],
      ['POST', '/sites/a.example/imports', to('POST /sites/{hostname}/imports', { hostname: 'a.example' })],
      ['POST', '/sites/a.example/imports/j1', null],
    ],
  },
];

/** Requests against the whole route table, and the route each must reach. */
const TABLE_REQUESTS: RouteCase['expect'] = [
  ['GET', '/api/sites/summary', to('GET /api/sites/summary')],
  ['GET', '/api/sites/blog.example.com', to('GET /api/sites/{hostname}', { hostname: 'blog.example.com' })],
  ['PATCH', '/api/sites/summary', to('PATCH /api/sites/{hostname}', { hostname: 'summary' })],
  ['GET', '/api/sites/blog.example.com/overview/summary', to('GET /api/sites/{hostname}/overview/summary', { hostname: 'blog.example.com' })],
  ['DELETE', '/api/management-keys/self', to('DELETE /api/management-keys/self')],
  ['DELETE', '/api/management-keys/k1', to('DELETE /api/management-keys/{id}', { id: 'k1' })],
  ['POST', '/api/sites/blog.example.com/imports/j1/retry', to('POST /api/sites/{hostname}/imports/{jobId}/retry', { hostname: 'blog.example.com', jobId: 'j1' })],
  ['HEAD', '/healthz', to('ANY /healthz')],
  ['POST', '/latest.js', to('ANY /latest.js')],
  ['POST', '/events', to('POST /events')],
  ['GET', '/events', null],
  ['PUT', '/api/sites', null],
  ['GET', '/api/sites/', null],
];

export const TABLE_CASE: RouteCase = { name: 'routes the route table', routes: routes.map(routeKey), expect: TABLE_REQUESTS };

/** Each group handler's own keys, in the order its file declares them, with the table requests that reach that group. */
export const GROUP_CASES: readonly RouteCase[] = Object.entries(groupHandlers).map(([group, handler]) => {
  const keys = Object.keys(handler.routes);
  return { name: `routes the ${group} group as its handler declares it`, routes: keys, expect: TABLE_REQUESTS.filter(([, , m]) => m && keys.includes(m.key)) };
});

/** Runs `cases` against one entry; `build` makes the entry for a case's routes (and may return a clean-up). */
export function runRouteCases(
  entry: string,
  build: (keys: readonly string[]) => Promise<{ match: MatchEntry; close?: () => Promise<void> }>,
  cases: readonly RouteCase[] = [...ROUTE_CASES, TABLE_CASE, ...GROUP_CASES],
): void {
  describe(entry, () => {
    for (const c of cases) {
      it(c.name, async () => {
        const { match, close } = await build(c.routes);
        try {
          for (const [method, path, want] of c.expect) expect(await match(method, path), `${method} ${path}`).toEqual(want);
        } finally {
          await close?.();
        }
      });
    }
  });
}
