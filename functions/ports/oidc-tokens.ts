/**
 * Port: an OIDC issuer's token and revocation endpoints, called by the
 * server for the dashboard's session on AWS (Cognito's hosted sign-in): the
 * browser never sees the refresh token. An endpoint that cannot be reached
 * or answers 5xx throws StoreUnavailableError (503).
 */
export interface OidcTokenSet {
  idToken: string;
  /** Seconds the tokens are valid. */
  expiresIn: number;
  /** Present on the code exchange (and on a refresh only when the issuer rotates refresh tokens). */
  refreshToken: string | null;
}

export interface OidcTokens {
  /** Authorization code with PKCE; null when the issuer refuses the code (spent, expired, wrong verifier). */
  exchangeCode(code: string, codeVerifier: string, redirectUri: string): Promise<OidcTokenSet | null>;
  /** The refresh_token grant; null when the issuer refuses the token (revoked, expired). */
  refresh(refreshToken: string): Promise<OidcTokenSet | null>;
  /** Revokes the refresh token (and the tokens it gave) at the issuer; false when the issuer refused. */
  revoke(refreshToken: string): Promise<boolean>;
}
