/** Port: verifies identity-provider ID tokens. */
export interface IdentityClaims {
  sub: string;
  email?: string;
}

export interface TokenVerifier {
  /** The claims of a valid ID token, or null for anything else (expired, wrong issuer, malformed). */
  verifyIdToken(token: string): Promise<IdentityClaims | null>;
}
