/**
 * Google's OAuth 2.0 endpoints and the Search Console API (webmasters v3)
 * over fetch, at configurable base URLs (tests run a local fake,
 * test/support/fake-google.ts). Failures become the product's refusals:
 * `invalid_grant` (revoked or expired grant), 403 (no permission), 429
 * (quota: retried with doubling waits a bounded number of times), 5xx and
 * network failures (retried the same way). No token ever goes into an error
 * text or a log line.
 */
import {
  GoogleGrantRevokedError,
  GoogleNotConfiguredError,
  GooglePermissionError,
  GoogleQuotaError,
  GoogleUnavailableError,
} from '#domain/errors.ts';
import type { GoogleProperty, GoogleSearchClient, GoogleSearchRow, GoogleSettings } from '#ports/search-console.ts';

export const SEARCH_CONSOLE_SCOPE = 'https://www.googleapis.com/auth/webmasters.readonly';

/** Google's OAuth client and base URLs (GOOGLE_*); `retryBaseMs` is the first wait after a 429 or 5xx, doubling, for at most `attempts` tries. */
export type GoogleEndpoints = GoogleSettings & { attempts?: number };

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Why an answer failed, as the refusal it becomes; null when it may succeed if asked again. */
function refusalOf(status: number, body: unknown): Error | null {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (error === 'invalid_grant' || status === 401) return new GoogleGrantRevokedError();
  if (status === 403) return new GooglePermissionError();
  return null;
}

export class FetchGoogleSearchClient implements GoogleSearchClient {
  constructor(private readonly endpoints: GoogleEndpoints) {}

  get configured(): boolean {
    const { clientId, clientSecret, redirectUri } = this.endpoints;
    return Boolean(clientId && clientSecret && redirectUri);
  }

  private settings(): { clientId: string; clientSecret: string; redirectUri: string } {
    const { clientId, clientSecret, redirectUri } = this.endpoints;
    if (!clientId || !clientSecret || !redirectUri) throw new GoogleNotConfiguredError();
    return { clientId, clientSecret, redirectUri };
  }

  authorizeUrl(state: string, codeChallenge: string): string {
    const { clientId, redirectUri } = this.settings();
    const url = new URL(this.endpoints.authUrl);
    const params = {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: SEARCH_CONSOLE_SCOPE,
      access_type: 'offline',
      prompt: 'consent',
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.toString();
  }

  /** One call, asked again after a 429 or a 5xx with doubling waits; the parsed JSON of a 2xx. */
  private async call(url: string, init: RequestInit): Promise<unknown> {
    const attempts = this.endpoints.attempts ?? 4;
    let quota = false;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(this.endpoints.retryBaseMs * 2 ** (attempt - 1));
      let res: Response;
      try {
        res = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
      } catch {
        quota = false;
        continue;
      }
      const text = await res.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = null;
      }
      if (res.ok) return body;
      const refusal = refusalOf(res.status, body);
      if (refusal) throw refusal;
      quota = res.status === 429;
      if (!quota && res.status < 500) throw new GoogleUnavailableError();
    }
    throw quota ? new GoogleQuotaError() : new GoogleUnavailableError();
  }

  private async token(form: Record<string, string>): Promise<{ access_token?: unknown; refresh_token?: unknown }> {
    const { clientId, clientSecret } = this.settings();
    const body = new URLSearchParams({ ...form, client_id: clientId, client_secret: clientSecret });
    return (await this.call(this.endpoints.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })) as { access_token?: unknown; refresh_token?: unknown };
  }

  async exchangeCode(code: string, verifier: string): Promise<{ refreshToken: string; accessToken: string }> {
    const r = await this.token({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: this.settings().redirectUri });
    if (typeof r.refresh_token !== 'string' || typeof r.access_token !== 'string') throw new GoogleUnavailableError();
    return { refreshToken: r.refresh_token, accessToken: r.access_token };
  }

  async accessToken(refreshToken: string): Promise<string> {
    const r = await this.token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    if (typeof r.access_token !== 'string') throw new GoogleUnavailableError();
    return r.access_token;
  }

  async listProperties(accessToken: string): Promise<GoogleProperty[]> {
    const r = (await this.call(`${this.endpoints.apiUrl}/webmasters/v3/sites`, { headers: { authorization: `Bearer ${accessToken}` } })) as { siteEntry?: GoogleProperty[] } | null;
    return (r?.siteEntry ?? []).filter((e) => typeof e.siteUrl === 'string').map((e) => ({ siteUrl: e.siteUrl, permissionLevel: String(e.permissionLevel) }));
  }

  async query(accessToken: string, property: string, request: { startDate: string; endDate: string; dimensions: string[]; rowLimit: number; startRow: number }): Promise<GoogleSearchRow[]> {
    const url = `${this.endpoints.apiUrl}/webmasters/v3/sites/${encodeURIComponent(property)}/searchAnalytics/query`;
    const r = (await this.call(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...request, dataState: 'all' }),
    })) as { rows?: GoogleSearchRow[] } | null;
    return r?.rows ?? [];
  }

  async revoke(token: string): Promise<void> {
    try {
      await fetch(this.endpoints.revokeUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }), signal: AbortSignal.timeout(10_000) });
    } catch {
      // Best effort: the link is removed either way, and the grant then only lapses at Google.
    }
  }
}
