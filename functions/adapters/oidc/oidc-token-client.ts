/**
 * OidcTokens over an issuer's OAuth 2.0 endpoints (Cognito's `/oauth2/token`
 * and `/oauth2/revoke`) for a public client: form-encoded POSTs with the
 * client id, no secret (PKCE protects the code). The tokens are never logged
 * and never part of an error.
 */
import { StoreUnavailableError } from '#domain/errors.ts';
import type { OidcTokenSet, OidcTokens } from '#ports/oidc-tokens.ts';

export interface OidcTokenClientOptions {
  tokenUrl: string;
  revokeUrl: string;
  clientId: string;
  /** Each call is given up after this long (503). */
  timeoutMs?: number;
}

interface TokenAnswer {
  id_token?: unknown;
  expires_in?: unknown;
  refresh_token?: unknown;
}

export class OidcTokenClient implements OidcTokens {
  constructor(private readonly options: OidcTokenClientOptions) {}

  exchangeCode(code: string, codeVerifier: string, redirectUri: string): Promise<OidcTokenSet | null> {
    return this.tokens({ grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri });
  }

  refresh(refreshToken: string): Promise<OidcTokenSet | null> {
    return this.tokens({ grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  async revoke(refreshToken: string): Promise<boolean> {
    const r = await this.post(this.options.revokeUrl, { token: refreshToken });
    return r.ok;
  }

  /** A token request: the tokens, null on the issuer's 4xx (a refused grant), 503 on anything else. */
  private async tokens(form: Record<string, string>): Promise<OidcTokenSet | null> {
    const r = await this.post(this.options.tokenUrl, form);
    if (r.status >= 400 && r.status < 500) return null;
    const answer = r.ok ? ((await r.json().catch(() => null)) as TokenAnswer | null) : null;
    if (!answer || typeof answer.id_token !== 'string') throw new StoreUnavailableError();
    return {
      idToken: answer.id_token,
      expiresIn: typeof answer.expires_in === 'number' ? answer.expires_in : 3600,
      refreshToken: typeof answer.refresh_token === 'string' ? answer.refresh_token : null,
    };
  }

  private async post(url: string, form: Record<string, string>): Promise<Response> {
    try {
      return await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams({ client_id: this.options.clientId, ...form }).toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
      });
    } catch {
      throw new StoreUnavailableError();
    }
  }
}
