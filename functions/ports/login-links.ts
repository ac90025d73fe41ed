/**
 * Port: one-time sign-in links of the local dashboard (`npm run admin --
 * login-link <user>`). Only the code's hash is kept; a link signs in once.
 */
export interface LoginLinks {
  /** Keeps a link for `sub` until `expiresAt` (Unix seconds). */
  create(codeHash: string, sub: string, expiresAt: number): Promise<void>;
  /** The link's user, removing the link; null when unknown, used or past `nowSeconds`. Atomic: two calls never both get the user. */
  consume(codeHash: string, nowSeconds: number): Promise<string | null>;
}
