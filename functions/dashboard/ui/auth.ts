/**
 * Signing owners in. The ID token lives in sessionStorage (this tab only,
 * never a cookie another site could ride) with its expiry; when it is missing
 * or expired, the tab asks the session for a new one, and only when that
 * fails (or the API answers 401) the page goes to /login, remembering where
 * the owner was, and comes back there after sign-in.
 *   local: the link from `npm run admin -- login-link <user>` carries a
 *     one-time code in its fragment, traded at POST /dashboard/login for a
 *     session: an HttpOnly cookie no script reads, which gives each tab
 *     short-lived tokens (POST /dashboard/session) until sign-out ends it for
 *     every tab (POST /dashboard/logout, and a message to the other tabs).
 *   oidc: authorization code with PKCE against the issuer (Cognito's hosted
 *     sign-in on AWS); the verifier and state wait in sessionStorage. With
 *     `session` (the stack's own dashboard) the code goes to POST
 *     /dashboard/login instead, which trades it at the issuer and keeps the
 *     refresh token in the same kind of HttpOnly cookie: from there on, one
 *     flow with the local sign-in (tokens per tab, sign-out for every tab).
 */
import type { DashboardConfig, SignIn } from '../config.ts';
import { tabStorage } from './tab-storage.ts';

const TOKEN = 'tt.token';
/** The header the session routes want (a form or link of another site cannot send it). */
const SESSION_HEADERS = { 'X-Tinytrack-Session': '1' };
/** Tells the other tabs of this origin that the owner signed out. */
const signedOutChannel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('tt.auth');
const RETURN_TO = 'tt.returnTo';
const PKCE = 'tt.pkce';

interface StoredToken {
  token: string;
  /** Unix milliseconds. */
  expiresAt: number;
}

let config: DashboardConfig | null = null;

export async function loadConfig(): Promise<DashboardConfig> {
  if (config) return config;
  const r = await fetch('/dashboard/config.json', { cache: 'no-store' });
  if (!r.ok) throw new Error(`dashboard configuration unavailable (${r.status})`);
  config = (await r.json()) as DashboardConfig;
  return config;
}

/** The `exp` claim of a JWT in milliseconds, or now when it has none we can read. */
function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : Date.now();
  } catch {
    return Date.now();
  }
}

export function currentToken(): string | null {
  const raw = tabStorage.getItem(TOKEN);
  if (!raw) return null;
  const stored = JSON.parse(raw) as StoredToken;
  // A token about to expire is as good as gone: a request sent with it could arrive too late.
  return stored.expiresAt - 10_000 > Date.now() ? stored.token : null;
}

function keepToken(token: string) {
  tabStorage.setItem(TOKEN, JSON.stringify({ token, expiresAt: expiryOf(token) } satisfies StoredToken));
}

/** This origin keeps a session that gives each tab its tokens: the local sign-in, or an issuer's refresh token (`session`). */
const keepsSession = (signIn: SignIn): boolean => signIn.type === 'local' || signIn.session === true;

/**
 * A new token from the session (new tabs, a token running out), kept for this tab; null when there
 * is no session (never signed in, signed out, expired) or the OIDC issuer's tokens live in the tab alone.
 */
export async function renewToken(): Promise<string | null> {
  if (!keepsSession((await loadConfig()).signIn)) return null;
  const r = await fetch('/dashboard/session', { method: 'POST', headers: SESSION_HEADERS, cache: 'no-store' }).catch(() => null);
  if (r?.status !== 200) return null;
  const { id_token } = (await r.json()) as { id_token: string };
  keepToken(id_token);
  return id_token;
}

/** This tab's token, renewed from the session when it is missing or running out. */
export async function tokenOrRenewed(): Promise<string | null> {
  return currentToken() ?? (await renewToken());
}

// Another tab signed out: this one is signed out too.
signedOutChannel?.addEventListener('message', (e: MessageEvent) => {
  if (e.data !== 'signed-out') return;
  tabStorage.removeItem(TOKEN);
  location.assign('/login');
});

/**
 * Set once the page is leaving for /login: the panels' other calls refused meanwhile must not
 * start that navigation again, which would cancel the first one (the page would then load twice).
 */
let leavingForSignIn = false;

/** Leaves for /login, remembering the page (path and query) to come back to; once, however many calls are refused. */
export function requireSignIn(): void {
  if (leavingForSignIn) return;
  leavingForSignIn = true;
  tabStorage.removeItem(TOKEN);
  const here = location.pathname + location.search;
  if (location.pathname !== '/login') tabStorage.setItem(RETURN_TO, here);
  location.assign('/login');
}

/** Where to go after sign-in: the remembered page, or the sites list. Only same-site paths. */
export function takeReturnPath(): string {
  const path = tabStorage.getItem(RETURN_TO);
  tabStorage.removeItem(RETURN_TO);
  return path && path.startsWith('/') && !path.startsWith('//') ? path : '/';
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomText = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

async function oidcEndpoints(signIn: Extract<SignIn, { type: 'oidc' }>): Promise<{ authorize: string; token: string; logout?: string }> {
  if (signIn.authorizeUrl && signIn.tokenUrl) return { authorize: signIn.authorizeUrl, token: signIn.tokenUrl, logout: signIn.logoutUrl };
  const r = await fetch(`${signIn.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  const d = (await r.json()) as { authorization_endpoint: string; token_endpoint: string; end_session_endpoint?: string };
  return { authorize: d.authorization_endpoint, token: d.token_endpoint, logout: signIn.logoutUrl ?? d.end_session_endpoint };
}

const callbackUrl = () => `${location.origin}/login`;

/** OIDC: off to the issuer's sign-in page. */
export async function startOidcSignIn(signIn: Extract<SignIn, { type: 'oidc' }>): Promise<void> {
  const { authorize } = await oidcEndpoints(signIn);
  const verifier = randomText();
  const state = randomText();
  tabStorage.setItem(PKCE, JSON.stringify({ verifier, state }));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const url = new URL(authorize);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: signIn.clientId,
    redirect_uri: callbackUrl(),
    scope: signIn.scope ?? 'openid email',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.toString());
}

/**
 * Finishes a sign-in that brought the browser back to /login: the local link's
 * fragment code, or the issuer's code and state. True when a token is now kept.
 * Throws with a message for the owner when the link or code is refused.
 */
export async function finishSignIn(signIn: SignIn): Promise<boolean> {
  if (signIn.type === 'local') {
    const code = new URLSearchParams(location.hash.slice(1)).get('code');
    if (!code) return false;
    // The code is spent either way: it must not stay in the address bar or history.
    history.replaceState(null, '', '/login');
    const r = await fetch('/dashboard/login', { method: 'POST', headers: { 'Content-Type': 'application/json', ...SESSION_HEADERS }, body: JSON.stringify({ code }) });
    if (!r.ok) throw new Error('This sign-in link is not valid: it was used already or is older than 10 minutes. Ask for a new one.');
    keepToken(((await r.json()) as { id_token: string }).id_token);
    return true;
  }
  const query = new URLSearchParams(location.search);
  const code = query.get('code');
  if (!code) return false;
  history.replaceState(null, '', '/login');
  const pkce = JSON.parse(tabStorage.getItem(PKCE) ?? 'null') as { verifier: string; state: string } | null;
  tabStorage.removeItem(PKCE);
  if (!pkce || query.get('state') !== pkce.state) throw new Error('The sign-in answer does not belong to this browser tab. Sign in again.');
  // With a session, this origin trades the code (the refresh token never reaches the page); else the tab does.
  const r = signIn.session
    ? await fetch('/dashboard/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...SESSION_HEADERS },
        body: JSON.stringify({ code, code_verifier: pkce.verifier, redirect_uri: callbackUrl() }),
      })
    : await fetch((await oidcEndpoints(signIn)).token, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', client_id: signIn.clientId, code, redirect_uri: callbackUrl(), code_verifier: pkce.verifier }).toString(),
      });
  if (!r.ok) throw new Error('The identity provider refused the sign-in. Sign in again.');
  keepToken(((await r.json()) as { id_token: string }).id_token);
  return true;
}

/**
 * Forgets the token and tells the other tabs; ends the session (for every tab: the local one, or
 * the issuer's refresh token, revoked), and with an OIDC issuer that has a logout endpoint, the
 * issuer's own sign-in session.
 */
export async function signOut(): Promise<void> {
  tabStorage.removeItem(TOKEN);
  signedOutChannel?.postMessage('signed-out');
  const signIn = (await loadConfig()).signIn;
  if (keepsSession(signIn)) await fetch('/dashboard/logout', { method: 'POST', headers: SESSION_HEADERS }).catch(() => undefined);
  if (signIn.type === 'oidc') {
    const { logout } = await oidcEndpoints(signIn);
    if (logout) {
      const url = new URL(logout);
      url.searchParams.set('client_id', signIn.clientId);
      url.searchParams.set('logout_uri', `${location.origin}/login`);
      location.assign(url.toString());
      return;
    }
  }
  location.assign('/login');
}
