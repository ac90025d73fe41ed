/**
 * Test support: a stand-in for Google's OAuth 2.0 endpoints and the Search
 * Console API (webmasters v3), over real HTTP with the real shapes:
 * `/o/oauth2/v2/auth` (the consent page: redirects back with a code at
 * once, as a user who agrees), `/token` (authorization_code with PKCE S256,
 * refresh_token; `invalid_grant` for a bad code, verifier or a revoked
 * grant), `/revoke`, `GET /webmasters/v3/sites` and `POST
 * /webmasters/v3/sites/{siteUrl}/searchAnalytics/query` (rows by `date` and
 * one more dimension, paged by `startRow`/`rowLimit`). `failNext` makes the
 * next API answers a 429 or a 403. Every token it issues is kept in `issued`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRow {
  date: string;
  query: string;
  page: string;
  country: string;
  device: string;
  clicks: number;
  impressions: number;
  position: number;
}

export interface FakeGoogle {
  url: string;
  /** The env of a service using it. */
  env: Record<string, string>;
  /** Properties the account can read. */
  properties: { siteUrl: string; permissionLevel: string }[];
  /** Search rows per property. */
  rows: Map<string, FakeRow[]>;
  /** Every access and refresh token issued so far. */
  issued: string[];
  /** Grants revoked (their refresh tokens). */
  revoked: Set<string>;
  /** searchAnalytics.query bodies received. */
  queries: { property: string; body: Record<string, unknown> }[];
  /** The next `count` API answers fail with `status` (429 quota, 403 permission). */
  failNext(status: 429 | 403, count: number): void;
  close(): Promise<void>;
}

const CLIENT_ID = 'fake-client-id.apps.googleusercontent.com';
const CLIENT_SECRET = 'fake-client-secret';
const token = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

function body(req: IncomingMessage): Promise<string> {
  return new Promise((ok) => {
    let s = '';
    req.on('data', (c: Buffer) => (s += c.toString()));
    req.on('end', () => ok(s));
  });
}

const GROUP_KEY: Record<string, keyof FakeRow> = { query: 'query', page: 'page', country: 'country', device: 'device', date: 'date' };

/** Rows of `dimensions` between the dates, summed per key, ordered by clicks (as Google answers). */
function aggregate(rows: readonly FakeRow[], dimensions: string[], startDate: string, endDate: string) {
  const groups = new Map<string, { keys: string[]; clicks: number; impressions: number; weighted: number }>();
  for (const r of rows) {
    if (r.date < startDate || r.date > endDate) continue;
    const keys = dimensions.map((d) => String(r[GROUP_KEY[d] as keyof FakeRow]));
    const k = keys.join('\n');
    const g = groups.get(k) ?? { keys, clicks: 0, impressions: 0, weighted: 0 };
    g.clicks += r.clicks;
    g.impressions += r.impressions;
    g.weighted += r.position * r.impressions;
    groups.set(k, g);
  }
  return [...groups.values()]
    .sort((a, b) => b.clicks - a.clicks || a.keys.join().localeCompare(b.keys.join()))
    .map((g) => ({ keys: g.keys, clicks: g.clicks, impressions: g.impressions, ctr: g.impressions ? g.clicks / g.impressions : 0, position: g.impressions ? g.weighted / g.impressions : 0 }));
}

export async function startFakeGoogle(redirectUri: string): Promise<FakeGoogle> {
  const codes = new Map<string, { challenge: string; redirect: string }>();
  const refreshTokens = new Set<string>();
  const accessTokens = new Set<string>();
  let failures: { status: number; count: number } = { status: 0, count: 0 };
  const fake = {} as FakeGoogle;
  const json = (res: ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(JSON.stringify(value));
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const text = await body(req);
      if (url.pathname === '/o/oauth2/v2/auth') {
        const q = url.searchParams;
        if (q.get('client_id') !== CLIENT_ID || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return json(res, 400, { error: 'invalid_request' });
        const code = token('4/code-');
        codes.set(code, { challenge: q.get('code_challenge') as string, redirect: q.get('redirect_uri') as string });
        const back = new URL(q.get('redirect_uri') as string);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.get('state') as string);
        back.searchParams.set('scope', q.get('scope') as string);
        res.writeHead(302, { location: back.toString() });
        return res.end();
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        const f = new URLSearchParams(text);
        if (f.get('client_id') !== CLIENT_ID || f.get('client_secret') !== CLIENT_SECRET) return json(res, 401, { error: 'invalid_client' });
        if (f.get('grant_type') === 'authorization_code') {
          const kept = codes.get(f.get('code') ?? '');
          codes.delete(f.get('code') ?? '');
          const challenge = createHash('sha256').update(f.get('code_verifier') ?? '').digest('base64url');
          if (!kept || kept.challenge !== challenge || kept.redirect !== f.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
          const refresh = token('1//refresh-');
          const access = token('ya29.access-');
          refreshTokens.add(refresh);
          accessTokens.add(access);
          fake.issued.push(refresh, access);
          return json(res, 200, { access_token: access, expires_in: 3599, refresh_token: refresh, scope: 'https://www.googleapis.com/auth/webmasters.readonly', token_type: 'Bearer' });
        }
        if (f.get('grant_type') === 'refresh_token') {
          if (!refreshTokens.has(f.get('refresh_token') ?? '')) return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
          const access = token('ya29.access-');
          accessTokens.add(access);
          fake.issued.push(access);
          return json(res, 200, { access_token: access, expires_in: 3599, scope: 'https://www.googleapis.com/auth/webmasters.readonly', token_type: 'Bearer' });
        }
        return json(res, 400, { error: 'unsupported_grant_type' });
      }
      if (url.pathname === '/revoke' && req.method === 'POST') {
        const t = new URLSearchParams(text).get('token') ?? '';
        if (!refreshTokens.delete(t)) return json(res, 400, { error: 'invalid_token' });
        fake.revoked.add(t);
        return json(res, 200, {});
      }
      if (url.pathname.startsWith('/webmasters/v3/')) {
        if (!accessTokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) {
          return json(res, 401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
        }
        if (failures.count > 0) {
          failures.count--;
          const status = failures.status;
          return json(res, status, {
            error: status === 429 ? { code: 429, message: 'Search Analytics load quota exceeded.', status: 'RESOURCE_EXHAUSTED' } : { code: 403, message: "User does not have sufficient permission for site.", status: 'PERMISSION_DENIED' },
          });
        }
        if (url.pathname === '/webmasters/v3/sites') return json(res, 200, fake.properties.length ? { siteEntry: fake.properties } : {});
        const m = /^\/webmasters\/v3\/sites\/([^/]+)\/searchAnalytics\/query$/.exec(url.pathname);
        if (m && req.method === 'POST') {
          const property = decodeURIComponent(m[1] as string);
          const q = JSON.parse(text) as { startDate: string; endDate: string; dimensions: string[]; rowLimit: number; startRow: number };
          fake.queries.push({ property, body: q });
          const all = aggregate(fake.rows.get(property) ?? [], q.dimensions, q.startDate, q.endDate);
          const page = all.slice(q.startRow ?? 0, (q.startRow ?? 0) + Math.min(q.rowLimit ?? 1000, 25_000));
          return json(res, 200, page.length ? { rows: page, responseAggregationType: 'byPage' } : { responseAggregationType: 'byPage' });
        }
      }
      json(res, 404, { error: { code: 404, message: 'Not Found' } });
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(fake, {
    url,
    env: {
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
      GOOGLE_REDIRECT_URI: redirectUri,
      GOOGLE_AUTH_URL: `${url}/o/oauth2/v2/auth`,
      GOOGLE_TOKEN_URL: `${url}/token`,
      GOOGLE_REVOKE_URL: `${url}/revoke`,
      GOOGLE_API_URL: url,
      GOOGLE_RETRY_BASE_MS: '1',
    },
    properties: [],
    rows: new Map(),
    issued: [],
    revoked: new Set(),
    queries: [],
    failNext(status: 429 | 403, count: number) {
      failures = { status, count };
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  } satisfies Partial<FakeGoogle>);
  return fake;
}
