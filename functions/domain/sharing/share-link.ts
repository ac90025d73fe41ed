/**
 * Secret share links (issue 40, part 5): a link reads one site's public
 * reports without the site being public. The slug is 18 random bytes
 * (144 bits) in base64url, shown to the owner once; only its SHA-256 is
 * stored, as site API keys and live tickets are. A link may carry a password
 * (password.ts) and is read with a signed grant after it (grant.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ShareLinkRecord } from '#ports/share-links.ts';

/** At most this many live links per site. */
export const MAX_SHARE_LINKS = 20;
export const MAX_SHARE_LABEL = 100;
export const MIN_SHARE_PASSWORD = 8;
export const MAX_SHARE_PASSWORD = 200;
/** Password guesses per link and minute (every unlock counts, right or wrong). */
export const SHARE_GUESSES_PER_MINUTE = 10;

const SLUG_BYTES = 18;
const SLUG = /^[A-Za-z0-9_-]{24}$/;

export const newSlug = (): string => randomBytes(SLUG_BYTES).toString('base64url');
/** Whether `value` has a slug's form (24 base64url characters); anything else is unknown without a lookup. */
export const isSlug = (value: unknown): value is string => typeof value === 'string' && SLUG.test(value);
/** How a slug is stored and looked up: its SHA-256, hex. */
export const slugHash = (slug: string): string => createHash('sha256').update(slug).digest('hex');

/** The dashboard's paths of a link: the share page, and the page other sites may frame. */
export const sharePagePath = (slug: string): string => `/share/link/${slug}`;
export const embedPagePath = (slug: string): string => `/embed/${slug}`;

/** The texts parseShareLinkRequest answers with, in the order it checks. */
export const SHARE_LINK_ERRORS = [
  'invalid share link',
  // MAX_SHARE_LABEL, MIN_SHARE_PASSWORD and MAX_SHARE_PASSWORD written out, as every error text is once.
  'label must be text of at most 100 characters',
  'password must be 8 to 200 characters',
  'password must be given as text: {"password": "…"}',
] as const;
const [INVALID_REQUEST, INVALID_LABEL, INVALID_PASSWORD, INVALID_UNLOCK] = SHARE_LINK_ERRORS;
export { INVALID_UNLOCK };

export type ShareLinkRequest = { label: string; password: string | null };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A creation request, a JSON object: `label` (optional text) and `password` (optional; null or "" for none). */
export function parseShareLinkRequest(body: unknown): { ok: true; value: ShareLinkRequest } | { ok: false; error: string } {
  if (!isPlainObject(body)) return { ok: false, error: INVALID_REQUEST };
  const label = body.label ?? '';
  if (typeof label !== 'string' || label.trim().length > MAX_SHARE_LABEL) return { ok: false, error: INVALID_LABEL };
  const password = body.password ?? '';
  if (typeof password !== 'string' || (password !== '' && (password.length < MIN_SHARE_PASSWORD || password.length > MAX_SHARE_PASSWORD))) {
    return { ok: false, error: INVALID_PASSWORD };
  }
  return { ok: true, value: { label: label.trim(), password: password === '' ? null : password } };
}

/** An unlock request's password (`{"password": "…"}`), or the refusal's text. */
export function parseUnlockRequest(body: unknown): { ok: true; password: string } | { ok: false; error: string } {
  const password = isPlainObject(body) ? body.password : undefined;
  return typeof password === 'string' && password.length <= MAX_SHARE_PASSWORD ? { ok: true, password } : { ok: false, error: INVALID_UNLOCK };
}

/** A link as the owner lists it: never its slug (not stored) nor its password's hash. */
export const shareLinkView = (link: ShareLinkRecord) => ({ id: link.id, label: link.label, password: link.password_hash !== null, created_at: link.created_at });

/** The start of the minute `nowMs` falls in: the window guesses are counted in. */
export const guessWindow = (nowMs: number): number => Math.floor(nowMs / 60_000) * 60_000;
