/**
 * The dashboard's session routes (issue 40), POST only and with the page's
 * session header, the same paths locally and on AWS (SESSION_PATHS):
 *   login: starts a session (its HttpOnly cookie) and gives a first ID token;
 *   session: the cookie gives a new short-lived ID token (each tab, as it needs one), or 204 without one;
 *   logout: ends the session for every tab and clears the cookie.
 * Locally the session is a stored id (functions/local/dashboard-edge.ts); with Cognito's
 * hosted sign-in it is Cognito's refresh token (oidcSessionRoutes, here).
 */
import { SignInRequiredError } from '#domain/errors.ts';
import { SESSION_PATHS, SESSION_REQUEST_HEADER, refreshTokenOf, sessionCookie } from '#domain/dashboard-session.ts';
import type { OidcTokenSet, OidcTokens } from '#ports/oidc-tokens.ts';
import { log } from '#platform/log.ts';
import { errorResponse, json, jsonBody, type ApiResponse } from './api.ts';

export type SessionRoute = (body: Buffer, headers: Record<string, string | undefined>) => Promise<ApiResponse>;
export type SessionRoutes = Readonly<Record<(typeof SESSION_PATHS)[keyof typeof SESSION_PATHS], SessionRoute>>;

/** Runs `route` for a request that carries the page's session header; 401 `sign in required` otherwise (a form or link of another site). */
export function answerSessionRoute(route: SessionRoute, body: Buffer, headers: Record<string, string | undefined>): Promise<ApiResponse> {
  return headers[SESSION_REQUEST_HEADER] === '1' ? route(body, headers) : Promise.resolve(errorResponse(new SignInRequiredError()));
}

/** A minted ID token for the tab, with the cookie to set when the session starts. */
export const tokenAnswer = (idToken: string, expiresIn: number, headers: Record<string, string> = {}): ApiResponse =>
  json(200, { id_token: idToken, expires_in: expiresIn }, headers);

/** No session (never signed in, signed out, expired) and the cookie cleared: an ordinary answer, 204, as a new tab asks before it knows. */
export const noSession = (secureCookie: boolean): ApiResponse => ({
  statusCode: 204,
  headers: { 'Cache-Control': 'no-store', 'Set-Cookie': sessionCookie('', 0, secureCookie) },
  body: '',
});

/** The issuer refused the code of a sign-in (spent, expired, another verifier): sign in again. */
export const SIGN_IN_REFUSED = 'sign-in refused by the identity provider: sign in again';

export interface OidcSessionOptions {
  tokens: OidcTokens;
  /** The app client's refresh-token validity (DASHBOARD_SESSION_DAYS): the cookie's lifetime. */
  sessionDays: number;
  /**
   * The callback the authorization request named (`<dashboard origin>/login`), which the code is bound to:
   * fixed on AWS (DASHBOARD_ORIGIN); null locally, where the page names it (an http(s) URL of path /login;
   * the issuer refuses any other than the authorization request's).
   */
  redirectUri: string | null;
  /** The cookie is Secure: always on AWS (CloudFront is HTTPS), locally when PUBLIC_URL is https. */
  secureCookie: boolean;
}

/** The page's callback URL from the login body: `http(s)://host[:port]/login` and nothing more. */
function callbackOf(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 512) return null;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname === '/login' && !url.search && !url.hash && !url.username ? url.toString() : null;
  } catch {
    return null;
  }
}

/** A code or PKCE verifier of the login body: RFC 7636's unreserved characters only. */
const unreserved = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' && value.length >= min && value.length <= max && /^[A-Za-z0-9._~-]+$/.test(value);

/** The session routes over an OIDC issuer's refresh tokens: the refresh token lives only in the HttpOnly cookie. */
export function oidcSessionRoutes({ tokens, sessionDays, redirectUri, secureCookie }: OidcSessionOptions): SessionRoutes {
  const lifetime = sessionDays * 86_400;
  // An issuer that rotates refresh tokens gives a new one with each refresh: the cookie follows it.
  const answer = (set: OidcTokenSet) =>
    tokenAnswer(set.idToken, set.expiresIn, set.refreshToken === null ? {} : { 'Set-Cookie': sessionCookie(set.refreshToken, lifetime, secureCookie) });
  return {
    [SESSION_PATHS.login]: async (body) => {
      const form = jsonBody({ body }) as { code?: unknown; code_verifier?: unknown; redirect_uri?: unknown } | undefined;
      const callback = redirectUri ?? callbackOf(form?.redirect_uri);
      if (!form || callback === null || !unreserved(form.code, 1, 2048) || !unreserved(form.code_verifier, 43, 128)) return json(400, { error: SIGN_IN_REFUSED });
      const set = await tokens.exchangeCode(form.code, form.code_verifier, callback);
      return set === null ? json(400, { error: SIGN_IN_REFUSED }) : answer(set);
    },
    [SESSION_PATHS.session]: async (_, headers) => {
      const refreshToken = refreshTokenOf(headers.cookie);
      const set = refreshToken === null ? null : await tokens.refresh(refreshToken);
      return set === null ? noSession(secureCookie) : answer(set);
    },
    [SESSION_PATHS.logout]: async (_, headers) => {
      const refreshToken = refreshTokenOf(headers.cookie);
      // The cookie goes either way; a revocation that failed is logged (never the token): the token stays valid until it expires.
      const revoked = refreshToken === null ? true : await tokens.revoke(refreshToken).catch(() => false);
      if (!revoked) log.warn('refresh token not revoked', { route: SESSION_PATHS.logout });
      return noSession(secureCookie);
    },
  };
}
