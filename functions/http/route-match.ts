/**
 * The one route matcher: the local edge (over the route table) and every group
 * handler (over its own route keys, for Function URL events) choose a route
 * with it. Kept free of schemas, so the group bundles stay small.
 */

/** A route as the matcher sees it: a method (or `ANY`) and an API Gateway path (`/api/sites/{hostname}`). */
export interface RoutePattern {
  readonly method: string;
  readonly path: string;
}

export type RouteMatch<R> = { route: R; params: Record<string, string> } | { route: null; pathMatched: boolean };

const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');

/** Path segments against pattern segments: exact literals; `{name}` takes one non-empty segment, URL-decoded. */
function matchSegments(want: readonly string[], got: readonly string[]): Record<string, string> | null {
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (isParam(w)) {
      if (!g) return null;
      try {
        params[w.slice(1, -1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) return null;
  }
  return params;
}

/** Paths match exactly (no trailing-slash or case folding); `{name}` matches one non-empty segment. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  return matchSegments(pattern.split('/'), path.split('/'));
}

/** `METHOD /path` → its parts (the route key API Gateway puts in the event). */
export function parseRouteKey(key: string): RoutePattern {
  const space = key.indexOf(' ');
  return { method: key.slice(0, space), path: key.slice(space + 1) };
}

interface Compiled<R> {
  route: R;
  segments: string[];
  /** Per segment: 0 literal, 1 parameter. */
  shape: number[];
}

/**
 * More specific first: the first segment where one route has a literal and the
 * other a parameter decides (the literal wins), then a named method before ANY.
 * Routes of different lengths never match the same path; length only keeps the order total.
 */
function bySpecificity<R extends RoutePattern>(a: Compiled<R>, b: Compiled<R>): number {
  const n = Math.min(a.shape.length, b.shape.length);
  for (let i = 0; i < n; i++) if (a.shape[i] !== b.shape[i]) return (a.shape[i] as number) - (b.shape[i] as number);
  if (a.shape.length !== b.shape.length) return a.shape.length - b.shape.length;
  return Number(a.route.method === 'ANY') - Number(b.route.method === 'ANY');
}

const methodFits = (route: RoutePattern, method: string): boolean => route.method === method || route.method === 'ANY';

/**
 * A matcher over `routes`, independent of their order: literal segments before
 * `{param}` segments, as API Gateway HTTP APIs choose, and the request's own
 * method before ANY. No route: `pathMatched` says whether some route had the
 * path but not the method.
 */
export function createRouteMatcher<R extends RoutePattern>(routes: readonly R[]): (method: string, path: string) => RouteMatch<R> {
  // Routes without parameters, by path: most requests (collector, health) resolve with one lookup.
  const literal = new Map<string, R[]>();
  const patterned: Compiled<R>[] = [];
  for (const route of routes) {
    const segments = route.path.split('/');
    const shape = segments.map((s) => (isParam(s) ? 1 : 0));
    if (shape.includes(1)) patterned.push({ route, segments, shape });
    else literal.set(route.path, [...(literal.get(route.path) ?? []), route]);
  }
  patterned.sort(bySpecificity);
  for (const same of literal.values()) same.sort((a, b) => Number(a.method === 'ANY') - Number(b.method === 'ANY'));

  return (method, path) => {
    // A fully literal route is more specific than any patterned one of the same length.
    const same = literal.get(path);
    const exact = same?.find((r) => methodFits(r, method));
    if (exact) return { route: exact, params: {} };
    let pathMatched = same !== undefined;
    const got = path.split('/');
    for (const { route, segments } of patterned) {
      const params = matchSegments(segments, got);
      if (!params) continue;
      pathMatched = true;
      if (methodFits(route, method)) return { route, params };
    }
    return { route: null, pathMatched };
  };
}
