/**
 * The dashboard on the local server (DESIGN.md §1): the built page at `/`,
 * `/login`, `/sites/…`, `/share/…` and `/embed/…` (the page routes itself), its hashed
 * assets, its sign-in configuration, and the trade of a one-time login link
 * for an ID token of the local issuer. Asked only for requests no product
 * route matched, so the API and the collector never pass through here.
 */
import type { ApiResponse } from '#http/api.ts';
import { json, jsonBody } from '#http/api.ts';
import type { BuiltDashboard, DashboardFile } from '#dashboard/build.ts';
import type { DashboardConfig } from '#dashboard/config.ts';
import { embedPageHeaders, embedSlugOf, pageSecurityHeaders } from '#http/dashboard-page.ts';
import { answerSessionRoute, noSession, tokenAnswer, type SessionRoutes } from '#http/session-routes.ts';
import { INVALID_LOGIN_LINK, loginCodeHash, parseLoginCode } from '#domain/login-link.ts';
import { newSessionId, SESSION_PATHS, SESSION_TOKEN_TTL_SECONDS, sessionCookie, sessionHash, sessionIdOf } from '#domain/dashboard-session.ts';
import type { LoginLinks } from '#ports/login-links.ts';
import type { DashboardSessions } from '#ports/dashboard-sessions.ts';
import type { Clock } from '#ports/clock.ts';

/** Local sign-in: the links, the sessions they start, and the issuer that signs the tokens sessions give. */
export interface LocalSignIn {
  links: LoginLinks;
  sessions: DashboardSessions;
  mint: (sub: string, ttlSeconds: number) => Promise<string>;
  /** DASHBOARD_SESSION_DAYS. */
  sessionDays: number;
  /** The session cookie is Secure: the dashboard is served over HTTPS (PUBLIC_URL). */
  secureCookie: boolean;
}

export interface DashboardEdgeOptions {
  built: BuiltDashboard;
  config: DashboardConfig;
  /** Null with AUTH_ISSUER: owners sign in with that issuer. */
  localSignIn: LocalSignIn | null;
  /** With AUTH_ISSUER and AUTH_DOMAIN_URL (Cognito's hosted sign-in): the session routes over its refresh tokens, as on AWS. */
  oidcSession?: SessionRoutes | null;
  clock: Clock;
  /** The origins that may frame the share view of a link (its site's `embed_origins`); none: framing refused. */
  embedOrigins: (slug: string) => Promise<readonly string[]>;
}

export type DashboardEdge = (method: string, path: string, body: Buffer, headers: Record<string, string | undefined>) => Promise<ApiResponse | null>;

/** Paths the page answers itself: `/`, `/login`, `/account`, `/sites/{hostname}[/{view}]`, `/share/{hostname}`, `/share/link/{slug}`. */
const PAGE_PATH = /^\/(?:login|account|sites\/[^/]+(?:\/[a-z]+)?|share\/[^/]+|share\/link\/[^/]+)?$/;
/** The share view other sites may frame: `/embed/{slug}`. */
const EMBED_PATH = /^\/embed\/([^/]+)$/;

export function dashboardEdge({ built, config, localSignIn, oidcSession, clock, embedOrigins }: DashboardEdgeOptions): DashboardEdge {
  const securityHeaders = pageSecurityHeaders(config.signIn);
  const file = (f: DashboardFile, headers: Record<string, string> = securityHeaders): ApiResponse => ({
    statusCode: 200,
    headers: { 'Content-Type': f.contentType, 'Cache-Control': f.immutable ? 'public, max-age=31536000, immutable' : 'no-cache', ...headers },
    body: f.body.toString('utf8'),
  });
  /** The page, framable by the link's allowed origins alone; none listed: framing refused, as on every page. */
  async function embedPage(segment: string): Promise<ApiResponse> {
    const slug = embedSlugOf(segment);
    return file(built.index, embedPageHeaders(config.signIn, slug === null ? [] : await embedOrigins(slug)));
  }
  const configJson = JSON.stringify(config);

  const sessionRoutes = localSignIn ? sessionRoutesOf(localSignIn, clock) : (oidcSession ?? null);

  return async (method, path, body, headers) => {
    if (method === 'POST' && path.startsWith('/dashboard/') && sessionRoutes) {
      const route = sessionRoutes[path as keyof SessionRoutes] as SessionRoutes[keyof SessionRoutes] | undefined;
      if (route) return answerSessionRoute(route, body, headers);
    }
    if (method !== 'GET' && method !== 'HEAD') return null;
    if (path === '/dashboard/config.json') return { statusCode: 200, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...securityHeaders }, body: configJson };
    const asset = path.startsWith('/dashboard/') ? built.files.get(path) : undefined;
    if (asset) return file(asset);
    if (PAGE_PATH.test(path)) return file(built.index);
    const embed = EMBED_PATH.exec(path);
    if (embed) return embedPage(embed[1] as string);
    // A browser asking for a page that does not exist gets the page's own "not found" (status 404);
    // API clients, and anything under /api, keep the API's JSON 404.
    if (method === 'GET' && !path.startsWith('/api/') && headers.accept?.includes('text/html')) return { ...file(built.index), statusCode: 404 };
    return null;
  };
}

/**
 * The local sign-in's session routes (functions/http/session-routes.ts):
 *   login: a login link's code starts a session (its cookie) and gives a first token;
 *   session: the session's cookie gives a new short-lived token, or 204 without one when there is no session;
 *   logout: ends the session (every tab's next trade fails) and clears the cookie.
 */
function sessionRoutesOf(signIn: LocalSignIn, clock: Clock): SessionRoutes {
  const now = () => Math.floor(clock.now().getTime() / 1000);
  const token = async (sub: string, headers: Record<string, string> = {}) => tokenAnswer(await signIn.mint(sub, SESSION_TOKEN_TTL_SECONDS), SESSION_TOKEN_TTL_SECONDS, headers);
  return {
    [SESSION_PATHS.login]: async (body) => {
      const code = parseLoginCode(jsonBody({ body }) ?? null);
      const sub = code === null ? null : await signIn.links.consume(loginCodeHash(code), now());
      if (sub === null) return json(400, { error: INVALID_LOGIN_LINK });
      const id = newSessionId();
      const lifetime = signIn.sessionDays * 86_400;
      await signIn.sessions.create(sessionHash(id), sub, now() + lifetime);
      return token(sub, { 'Set-Cookie': sessionCookie(id, lifetime, signIn.secureCookie) });
    },
    [SESSION_PATHS.session]: async (_, headers) => {
      const id = sessionIdOf(headers.cookie);
      const sub = id === null ? null : await signIn.sessions.find(sessionHash(id), now());
      return sub !== null ? token(sub) : noSession(signIn.secureCookie);
    },
    [SESSION_PATHS.logout]: async (_, headers) => {
      const id = sessionIdOf(headers.cookie);
      if (id !== null) await signIn.sessions.delete(sessionHash(id));
      return noSession(signIn.secureCookie);
    },
  };
}
