/**
 * Errors the product API answers with. Each carries its HTTP status and the
 * exact `error` text of the spec; anything else becomes 500 `internal error`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const SIGN_IN_REQUIRED = 'sign in required';
export const INVALID_KEY = 'invalid or revoked management key';
export const KEYS_FORBIDDEN = 'management keys cannot call this endpoint';
export const UNKNOWN_SITE = 'unknown site';
export const NOT_FOUND = 'not found';
export const INTERNAL_ERROR = 'internal error';
export const UNVERIFIED_OWNER = 'Install your tracking script to verify this site first';

export const signInRequiredError = () => new ApiError(401, SIGN_IN_REQUIRED);
export const invalidKeyError = () => new ApiError(401, INVALID_KEY);
export const keysForbiddenError = () => new ApiError(403, KEYS_FORBIDDEN);
export const scopeRequiredError = (scope: string) => new ApiError(403, `scope ${scope} required`);
export const unknownSiteError = () => new ApiError(404, UNKNOWN_SITE);
export const badRequestError = (message: string) => new ApiError(400, message);
export const rateLimitedError = () => new ApiError(429, 'rate limited, retry in 1s', { 'Retry-After': '1' });
