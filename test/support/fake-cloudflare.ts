/**
 * Test support: a stand-in for the Cloudflare API (issue 41) with the real
 * request and response shapes: REST `GET /zones` (paged: `result_info`) and
 * `GET /zones/{id}` in the `{success, errors, messages, result}` envelope,
 * 400/403 with `errors: [{code, message}]`; GraphQL `POST /graphql` with
 * `{data, errors}` (`errors: [{message, path, extensions}]`), answering
 * `httpRequestsAdaptiveGroups` of the zone within the query's `datetime`
 * window, at most `limit` groups by count. Tokens are `Bearer` only; an
 * unknown one is 400 code 6003 on REST and an `authentication error` on
 * GraphQL; a token reads only its zones. `rateLimitNext(n)` makes the next n
 * GraphQL calls 429. Every request is recorded (path, body, auth header).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGroup {
  /** Any instant; grouped by its hour. */
  at: number;
  userAgent: string;
  path: string;
  count: number;
}

export interface FakeCloudflare {
  url: string;
  /** A token that reads these zones. */
  addToken(token: string, zones: readonly { id: string; name: string }[]): void;
  setGroups(zoneId: string, groups: readonly FakeGroup[]): void;
  rateLimitNext(n: number): void;
  requests: { method: string; path: string; body: string; authorization: string | undefined }[];
  stop(): Promise<void>;
}

const rest = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ success: status < 400, errors: [], messages: [], ...body }));
};
const graphql = (res: ServerResponse, data: unknown, errors: unknown[] | null) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ data, errors }));
};

export async function startFakeCloudflare(): Promise<FakeCloudflare> {
  const tokens = new Map<string, { id: string; name: string }[]>();
  const groups = new Map<string, FakeGroup[]>();
  let limited = 0;
  const requests: FakeCloudflare['requests'] = [];

  const zonesOf = (req: IncomingMessage) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    return m ? tokens.get(m[1] as string) : undefined;
  };

  function answerGraphql(req: IncomingMessage, res: ServerResponse, body: string) {
    if (limited > 0) {
      limited--;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ data: null, errors: [{ message: 'rate limiter budget depleted, try again after 5 minutes', extensions: { code: 'budgetDepleted' } }] }));
      return;
    }
    const zones = zonesOf(req);
    if (!zones) return graphql(res, null, [{ message: 'authentication error', path: ['viewer'], extensions: { code: 'authz' } }]);
    const { variables } = JSON.parse(body) as { variables: { zoneTag: string; start: string; end: string; limit: number } };
    if (!zones.some((z) => z.id === variables.zoneTag)) {
      return graphql(res, null, [{ message: `zone '${variables.zoneTag}' does not have access to the path`, path: ['viewer', 'zones', '0', 'httpRequestsAdaptiveGroups'], extensions: { code: 'authz' } }]);
    }
    const from = Date.parse(variables.start);
    const to = Date.parse(variables.end);
    const byKey = new Map<string, { count: number; dimensions: { datetimeHour: string; userAgent: string; clientRequestPath: string } }>();
    for (const g of groups.get(variables.zoneTag) ?? []) {
      if (g.at < from || g.at >= to) continue;
      const datetimeHour = new Date(Math.floor(g.at / 3_600_000) * 3_600_000).toISOString().replace('.000Z', 'Z');
      const key = JSON.stringify([datetimeHour, g.userAgent, g.path]);
      const found = byKey.get(key) ?? { count: 0, dimensions: { datetimeHour, userAgent: g.userAgent, clientRequestPath: g.path } };
      found.count += g.count;
      byKey.set(key, found);
    }
    const list = [...byKey.values()].sort((a, b) => b.count - a.count).slice(0, variables.limit);
    graphql(res, { viewer: { zones: [{ httpRequestsAdaptiveGroups: list }] } }, null);
  }

  function answerRest(req: IncomingMessage, res: ServerResponse, url: URL) {
    const zones = zonesOf(req);
    if (!zones) return rest(res, 400, { success: false, errors: [{ code: 6003, message: 'Invalid request headers', error_chain: [{ code: 6111, message: 'Invalid format for Authorization header' }] }] });
    if (url.pathname === '/zones') {
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 1);
      const sorted = [...zones].sort((a, b) => a.name.localeCompare(b.name));
      const result = sorted.slice((page - 1) * perPage, page * perPage).map((z) => ({ ...z, status: 'active' }));
      return rest(res, 200, { result, result_info: { page, per_page: perPage, count: result.length, total_count: sorted.length, total_pages: Math.max(1, Math.ceil(sorted.length / perPage)) } });
    }
    const zone = zones.find((z) => `/zones/${z.id}` === url.pathname);
    if (!zone) return rest(res, 403, { success: false, errors: [{ code: 9109, message: 'Unauthorized to access requested resource' }] });
    rest(res, 200, { result: { ...zone, status: 'active' } });
  }

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      requests.push({ method: req.method ?? '', path: url.pathname + url.search, body, authorization: req.headers.authorization });
      if (req.method === 'POST' && url.pathname === '/graphql') answerGraphql(req, res, body);
      else answerRest(req, res, url);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    addToken: (token, zones) => void tokens.set(token, [...zones]),
    setGroups: (zoneId, list) => void groups.set(zoneId, [...list]),
    rateLimitNext: (n) => void (limited = n),
    requests,
    stop: () => new Promise((ok) => server.close(() => ok())),
  };
}
