/**
 * Read grants of password-protected share links: after the right password
 * the reader gets `<link id>.<expiry>.<signature>` (HMAC-SHA-256 under the
 * service's share secret) and sends it in `X-Share-Grant` with each read, so
 * the password is sent once. A grant names its link and its expiry (Unix
 * seconds) and holds for nothing else; a revoked link's grants find no link.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a grant holds. */
export const GRANT_TTL_SECONDS = 3600;
/** The request header a grant travels in. */
export const GRANT_HEADER = 'x-share-grant';

const mac = (secret: Buffer, linkId: string, expires: number) => createHmac('sha256', secret).update(`share-grant\n${linkId}\n${expires}`).digest('base64url');

/** A grant for `linkId` until `expires` (Unix seconds). */
export const signGrant = (secret: Buffer, linkId: string, expires: number): string => `${linkId}.${expires}.${mac(secret, linkId, expires)}`;

/** Whether `grant` is this secret's, for `linkId`, and not expired at `nowSeconds`. */
export function grantHolds(secret: Buffer, grant: string | undefined, linkId: string, nowSeconds: number): boolean {
  if (!grant || grant.length > 200) return false;
  const [id, exp, signature, ...rest] = grant.split('.');
  if (id !== linkId || !exp || !/^\d{1,12}$/.test(exp) || !signature || rest.length > 0) return false;
  const expires = Number(exp);
  if (expires <= nowSeconds) return false;
  const expected = Buffer.from(mac(secret, linkId, expires));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
