/**
 * The dashboard on the local server (DESIGN.md §1): the built page at `/`,
 * `/login`, `/sites/…`, `/share/…` and `/embed/…` (the page routes itself), its hashed
 * assets, its sign-in configuration, and the trade of a one-time login link
 * for an ID token of the local issuer. Asked only for requests no product
 * route matched, so the API and the collector never pass through here.
 */
import type { ApiResponse } from '#http/api.ts';
import { errorResponse, json, jsonBody } from '#http/api.ts';
import { NotFoundError } from '#domain/errors.ts';
import type { BuiltDashboard, DashboardFile } from '#dashboard/build.ts';
import { dashboardCsp, type DashboardConfig } from '#dashboard/config.ts';
import { frameAncestors } from '#domain/sharing/embed-origins.ts';
import { INVALID_LOGIN_LINK, LOGIN_TOKEN_TTL_SECONDS, loginCodeHash, parseLoginCode } from '#domain/login-link.ts';
import type { LoginLinks } from '#ports/login-links.ts';
import type { Clock } from '#ports/clock.ts';

export interface DashboardEdgeOptions {
  built: BuiltDashboard;
  config: DashboardConfig;
  /** Local sign-in: the links and the issuer that signs the tokens they give. Null with AUTH_ISSUER. */
  localSignIn: { links: LoginLinks; mint: (sub: string, ttlSeconds: number) => Promise<string> } | null;
  clock: Clock;
  /** The origins that may frame the share view of a link (its site's `embed_origins`); none: framing refused. */
  embedOrigins: (slug: string) => Promise<readonly string[]>;
}

export type DashboardEdge = (method: string, path: string, body: Buffer) => Promise<ApiResponse | null>;

/** Paths the page answers itself: `/`, `/login`, `/sites/{hostname}[/{view}]`, `/share/{hostname}`, `/share/link/{slug}`. */
const PAGE_PATH = /^\/(?:login|sites\/[^/]+(?:\/[a-z]+)?|share\/[^/]+|share\/link\/[^/]+)?$/;
/** The share view other sites may frame: `/embed/{slug}`. */
const EMBED_PATH = /^\/embed\/([^/]+)$/;

export function dashboardEdge({ built, config, localSignIn, clock, embedOrigins }: DashboardEdgeOptions): DashboardEdge {
  const securityHeaders = {
    'Content-Security-Policy': dashboardCsp(config.signIn),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
  const file = (f: DashboardFile, headers: Record<string, string> = securityHeaders): ApiResponse => ({
    statusCode: 200,
    headers: { 'Content-Type': f.contentType, 'Cache-Control': f.immutable ? 'public, max-age=31536000, immutable' : 'no-cache', ...headers },
    body: f.body.toString('utf8'),
  });
  /** The page, framable by the link's allowed origins alone (no X-Frame-Options: it knows no list); none listed: as every page. */
  async function embedPage(slug: string): Promise<ApiResponse> {
    const origins = await embedOrigins(decodeURIComponent(slug));
    if (origins.length === 0) return file(built.index);
    const { 'X-Frame-Options': _denied, ...others } = securityHeaders;
    return file(built.index, { ...others, 'Content-Security-Policy': dashboardCsp(config.signIn, frameAncestors(origins)), 'Cache-Control': 'no-store' });
  }
  const configJson = JSON.stringify(config);

  async function login(body: Buffer): Promise<ApiResponse> {
    if (!localSignIn) return errorResponse(new NotFoundError());
    const code = parseLoginCode(jsonBody({ body }) ?? null);
    const sub = code === null ? null : await localSignIn.links.consume(loginCodeHash(code), Math.floor(clock.now().getTime() / 1000));
    if (sub === null) return json(400, { error: INVALID_LOGIN_LINK });
    return json(200, { id_token: await localSignIn.mint(sub, LOGIN_TOKEN_TTL_SECONDS), expires_in: LOGIN_TOKEN_TTL_SECONDS });
  }

  return async (method, path, body) => {
    if (method === 'POST' && path === '/dashboard/login') return login(body);
    if (method !== 'GET' && method !== 'HEAD') return null;
    if (path === '/dashboard/config.json') return { statusCode: 200, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...securityHeaders }, body: configJson };
    const asset = path.startsWith('/dashboard/') ? built.files.get(path) : undefined;
    if (asset) return file(asset);
    if (PAGE_PATH.test(path)) return file(built.index);
    const embed = EMBED_PATH.exec(path);
    if (embed) return embedPage(embed[1] as string);
    return null;
  };
}
