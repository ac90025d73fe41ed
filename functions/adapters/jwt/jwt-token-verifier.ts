/**
 * ID-token verification with aws-jwt-verify: a Cognito user pool, any OIDC
 * issuer, or the local issuer (whose JWKS is preloaded instead of fetched).
 */
import { JwtRsaVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';
import type { IdentityClaims, TokenVerifier } from '#ports/token-verifier.ts';

export interface JwtVerifierOptions {
  issuer: string;
  audience: string | null;
  jwksUri: string;
  /** Preloaded key set: no JWKS fetch happens for the local issuer. */
  jwks?: Jwks;
}

export class JwtTokenVerifier implements TokenVerifier {
  private readonly verifier;

  constructor(options: JwtVerifierOptions) {
    this.verifier = JwtRsaVerifier.create({
      issuer: options.issuer,
      audience: options.audience,
      jwksUri: options.jwksUri,
      // Access tokens are not accepted where the spec asks for an ID token.
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== undefined && payload.token_use !== 'id') throw new Error('not an ID token');
        if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('no subject');
      },
    });
    if (options.jwks) this.verifier.cacheJwks(options.jwks);
  }

  async verifyIdToken(token: string): Promise<IdentityClaims | null> {
    if (!token) return null;
    try {
      const payload = await this.verifier.verify(token);
      const claims: IdentityClaims = { sub: payload.sub as string };
      if (typeof payload.email === 'string') claims.email = payload.email;
      return claims;
    } catch {
      return null;
    }
  }
}
