/**
 * Local dashboard sign-in links (DESIGN.md §1): `npm run admin -- login-link
 * <user>` prints `{origin}/login#code=…`; the dashboard trades the code once,
 * within LOGIN_LINK_TTL_SECONDS, for a session (functions/domain/dashboard-session.ts). The code
 * travels in the fragment, so it never reaches a server log or a Referer.
 */
import { createHash, randomBytes } from 'node:crypto';

export const LOGIN_LINK_TTL_SECONDS = 600;
export const INVALID_LOGIN_LINK = 'invalid login link';

/** 256 random bits, base64url (43 characters). */
export function newLoginCode(): string {
  return randomBytes(32).toString('base64url');
}

export const loginCodeHash = (code: string): string => createHash('sha256').update(code).digest('hex');

/** A code as the dashboard sends it: 43 base64url characters, or null. */
export function parseLoginCode(body: unknown): string | null {
  const code = (body as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Za-z0-9_-]{43}$/.test(code) ? code : null;
}

export const loginLinkUrl = (origin: string, code: string): string => `${origin.replace(/\/+$/, '')}/login#code=${code}`;
