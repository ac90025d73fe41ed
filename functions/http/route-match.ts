/** Path matching shared by the route table and the group handlers (kept free of schemas, so bundles stay small). */

/** Paths match exactly; `{name}` matches one non-empty segment. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith('{') && w.endsWith('}')) {
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

/**
 * The handler key for a request that arrived without an API Gateway route key
 * (a Lambda Function URL sends `$default`): `METHOD /path/{param}` keys, or
 * `ANY …`, matched against the method and path.
 */
export function matchRouteKey(keys: readonly string[], method: string, path: string): { key: string; params: Record<string, string> } | null {
  for (const key of keys) {
    const space = key.indexOf(' ');
    const keyMethod = key.slice(0, space);
    if (keyMethod !== method && keyMethod !== 'ANY') continue;
    const params = matchPath(key.slice(space + 1), path);
    if (params) return { key, params };
  }
  return null;
}
