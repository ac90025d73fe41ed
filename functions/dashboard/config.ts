/**
 * What the dashboard page learns from `/dashboard/config.json`: how owners
 * sign in. Written by the local server (functions/local/dashboard-edge.ts) and
 * by the stack (lib/dashboard.ts); read by ui/auth.ts.
 */
export type SignIn =
  /** The local issuer: one-time links from `npm run admin -- login-link <user>`, traded at POST /dashboard/login. */
  | { type: 'local' }
  /**
   * An OIDC issuer (Cognito's hosted sign-in on AWS), authorization code with
   * PKCE. Endpoints not given are read from the issuer's discovery document.
   * `session`: the origin's session routes (POST /dashboard/login|session|logout) trade the code
   * server-side and keep the refresh token in an HttpOnly cookie (the stack's own dashboard);
   * without it the tab trades the code itself and keeps the ID token for its lifetime.
   */
  | { type: 'oidc'; issuer: string; clientId: string; authorizeUrl?: string; tokenUrl?: string; logoutUrl?: string; scope?: string; session?: boolean };

/**
 * Sign-in through Cognito's hosted sign-in at `domain` (https://<prefix>.auth.<region>.amazoncognito.com):
 * its OAuth endpoints, and whether the dashboard's origin keeps sessions over its refresh tokens.
 * The stack writes it (lib/auth.ts), and so does the local server given AUTH_DOMAIN_URL.
 */
export function cognitoSignIn(issuer: string, clientId: string, domain: string, session: boolean): SignIn {
  return {
    type: 'oidc',
    issuer,
    clientId,
    authorizeUrl: `${domain}/oauth2/authorize`,
    tokenUrl: `${domain}/oauth2/token`,
    logoutUrl: `${domain}/logout`,
    scope: 'openid email profile',
    ...(session ? { session: true } : {}),
  };
}

export interface DashboardConfig {
  signIn: SignIn;
  /**
   * Where the live stream is served when not on the page's own origin (AWS: its Function URL,
   * whose CORS lets this origin in); absent locally, where `/api/live/...` is on the same server.
   */
  liveUrl?: string;
  /**
   * Where the owner export (`/api/sites/{hostname}/export`) is served when not on the page's own origin
   * (AWS: its response-streaming Function URL; the HTTP API cannot stream); absent locally.
   */
  exportUrl?: string;
}

/**
 * The dashboard's Content-Security-Policy: its own scripts and styles only; an
 * OIDC token endpoint may sit on another origin. Images may be `blob:` URLs:
 * site icons are fetched with the owner's token and shown through
 * URL.createObjectURL (an `<img>` request carries no Authorization header),
 * and only the page's own script can make such a URL. Style attributes (not
 * style elements) are allowed: the e-mail digest's preview is the mail as
 * sent, styled inline as mail clients need, in a frame that runs no script
 * (a srcdoc frame keeps this policy).
 */
/**
 * `frameAncestors`: who may frame the page, `'none'` but for the embeddable share view
 * (`/embed/{slug}`), whose site lists the origins (functions/domain/sharing/embed-origins.ts).
 */
export function dashboardCsp(signIn: Pick<SignIn, 'type'>, frameAncestors = "'none'"): string {
  const connect = signIn.type === 'oidc' ? "'self' https:" : "'self'";
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}
