/**
 * The product API as the dashboard calls it: the same public endpoints any
 * API user has, on the page's own origin, with the owner's ID token when
 * signed in (public pages send none). A 401 to a signed-in call goes back to
 * sign-in; other refusals carry the API's error text to the panel.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { requireSignIn, tokenOrRenewed } from './auth.ts';
import { tabStorage } from './tab-storage.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  /** Public reads (share pages) go without a token. Default true. */
  signedIn?: boolean;
  signal?: AbortSignal;
  /** Further request headers (a Cloudflare token for GET /api/cloudflare/zones: never in a URL). */
  headers?: Record<string, string>;
}

/**
 * A share link's read grant (after its password), kept for this tab: sent with the link's reads
 * (`/api/share/…`) and nothing else. Never the password itself.
 */
const GRANT_KEY = 'tt-share-grant';
export function setShareGrant(grant: string | null): void {
  if (grant) tabStorage.setItem(GRANT_KEY, grant);
  else tabStorage.removeItem(GRANT_KEY);
}

export async function api<T>(path: string, { method = 'GET', body, signedIn = true, signal, headers: extra = {} }: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...extra };
  const grant = path.startsWith('/api/share/') ? tabStorage.getItem(GRANT_KEY) : null;
  if (grant) headers['X-Share-Grant'] = grant;
  if (signedIn) {
    const token = await tokenOrRenewed();
    if (!token) {
      requireSignIn();
      throw new ApiError(401, 'signing in');
    }
    headers.Authorization = `Bearer ${token}`;
  }
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, cache: 'no-store' });
  if (r.status === 401 && signedIn) {
    requireSignIn();
    throw new ApiError(401, 'signing in');
  }
  const data = (await r.json().catch(() => ({}))) as { error?: string };
  if (!r.ok) throw new ApiError(r.status, data.error ?? `request failed (${r.status})`);
  return data as T;
}

export interface Loaded<T> {
  data: T | null;
  error: ApiError | Error | null;
  loading: boolean;
  reload: () => void;
}

/**
 * A GET whose answer a panel shows; it runs again when `path` changes or
 * `reload` is called, and an answer to an older path never replaces a newer one.
 * A null path waits.
 */
export function useApi<T>(path: string | null, signedIn = true): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: Error | null; loading: boolean }>({ data: null, error: null, loading: path !== null });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    if (path === null) return;
    const id = ++latest.current;
    const controller = new AbortController();
    setState((s) => ({ data: s.data, error: null, loading: true }));
    api<T>(path, { signedIn, signal: controller.signal }).then(
      (data) => id === latest.current && setState({ data, error: null, loading: false }),
      (error: Error) => id === latest.current && error.name !== 'AbortError' && setState({ data: null, error, loading: false }),
    );
    return () => controller.abort();
  }, [path, signedIn, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, reload };
}

export const sitePath = (hostname: string) => `/api/sites/${encodeURIComponent(hostname)}`;

/**
 * Calls that change records a view lists (pause, test, delete): each reloads the list after it,
 * and `outcome` says how it went (`done`, or the API's refusal).
 */
export function useChanges(reload: () => void) {
  const [outcome, setOutcome] = useState<string | null>(null);
  const call = async (path: string, method: string, body?: unknown, done?: string) => {
    setOutcome(null);
    try {
      await api(path, { method, body });
      if (done) setOutcome(done);
      reload();
    } catch (e) {
      setOutcome(e instanceof ApiError ? e.message : 'The request failed.');
    }
  };
  return { call, outcome };
}

/** A form's submit: runs `action`; a refusal's text (or `fallback`) becomes `error`, for a FieldError beside the form. */
export function useSubmit(action: () => Promise<void>, fallback: string): { submit: (e: Event) => Promise<void>; error: string | null } {
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : fallback);
    }
  };
  return { submit, error };
}
