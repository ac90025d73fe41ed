/**
 * Dashboard sessions of the local sign-in (issue 40): a login link starts a
 * session that lasts DASHBOARD_SESSION_DAYS (30 by default) until sign-out.
 * The session is a random id in an HttpOnly, SameSite=Strict cookie on the
 * dashboard's own paths, so no page script can read it; each tab trades it
 * for short-lived ID tokens. Only the id's hash is stored, and signing out
 * deletes it: every tab's next trade fails.
 *
 * With Cognito's hosted sign-in (AWS) the same cookie, on the same paths,
 * holds Cognito's refresh token instead: the session's lifetime is the app
 * client's refresh-token validity, and signing out revokes the token at
 * Cognito (functions/http/oidc-session.ts).
 */
import { createHash, randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'tt_session';
/** The paths the cookie goes to: the dashboard's session routes, never the API or the collector. */
export const SESSION_COOKIE_PATH = '/dashboard';
export const DEFAULT_SESSION_DAYS = 30;
/** How long an ID token minted from a session lasts: a tab asks for a new one as it runs out. */
export const SESSION_TOKEN_TTL_SECONDS = 15 * 60;
/**
 * The header the page sends with its session requests. A form or a link of another site cannot
 * send it, and a cross-origin script cannot without a preflight the server never grants.
 */
export const SESSION_REQUEST_HEADER = 'x-tinytrack-session';

export const newSessionId = (): string => randomBytes(32).toString('base64url');
export const sessionHash = (id: string): string => createHash('sha256').update(id).digest('hex');

/** The paths of the session routes, the same locally and on AWS (where CloudFront sends them to the API's session function). */
export const SESSION_PATHS = { login: '/dashboard/login', session: '/dashboard/session', logout: '/dashboard/logout' } as const;

/** The session cookie's value in a Cookie header when it has the form `form` accepts, or null. */
function sessionCookieValue(cookieHeader: string | undefined, form: RegExp): string | null {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) {
      const found = value.join('=');
      return form.test(found) ? found : null;
    }
  }
  return null;
}

/** The session id a Cookie header carries, or null (only the id's form is accepted). */
export const sessionIdOf = (cookieHeader: string | undefined): string | null => sessionCookieValue(cookieHeader, /^[A-Za-z0-9_-]{43}$/);

/** The refresh token a Cookie header carries (Cognito's are JWE: base64url parts and dots), or null. */
export const refreshTokenOf = (cookieHeader: string | undefined): string | null => sessionCookieValue(cookieHeader, /^[A-Za-z0-9_.-]{16,3800}$/);

/** The Set-Cookie of a new session (`maxAgeSeconds`), or of its removal (0). Secure when the dashboard is served over HTTPS. */
export function sessionCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  return [`${SESSION_COOKIE}=${id}`, `Path=${SESSION_COOKIE_PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}
