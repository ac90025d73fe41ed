/**
 * ID-token verification with aws-jwt-verify: a Cognito user pool, any OIDC
 * issuer, or the local issuer (whose JWKS is preloaded instead of fetched).
 */
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache, type Jwks } from 'aws-jwt-verify/jwk';
import type { Fetcher } from 'aws-jwt-verify/https';
import type { IdentityClaims, TokenVerifier } from '#ports/token-verifier.ts';

export interface JwtVerifierOptions {
  issuer: string;
  /** Required: without it, tokens the issuer minted for any of its clients would pass. */
  audience: string;
  jwksUri: string;
  /** Preloaded key set (the local issuer): it is all there is, never fetched. */
  jwks?: Jwks;
}

/**
 * The fetcher behind a preloaded key set: a token naming a key outside it is
 * refused, never a reason to go to the network (the local issuer's URI is not
 * a host anyone should be asked about).
 */
export const preloadedOnly: Fetcher = {
  fetch: (uri) => Promise.reject(new Error(`${uri}: preloaded key set, not fetched`)),
};

export class JwtTokenVerifier implements TokenVerifier {
  private readonly verifier;

  constructor(options: JwtVerifierOptions) {
    const jwksCache = options.jwks ? new SimpleJwksCache({ fetcher: preloadedOnly }) : undefined;
    this.verifier = JwtRsaVerifier.create(
      {
        issuer: options.issuer,
        audience: options.audience,
        jwksUri: options.jwksUri,
        // Access tokens are not accepted where the spec asks for an ID token.
        customJwtCheck: ({ payload }) => {
          if (payload.token_use !== undefined && payload.token_use !== 'id') throw new Error('not an ID token');
          if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('no subject');
        },
      },
      jwksCache && { jwksCache },
    );
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
