/**
 * Site API keys (DESIGN.md §4): `tt_` and 48 lowercase hex characters,
 * shown once; stored as the SHA-256 of the secret (domain/auth.ts hashSecret).
 * They authenticate only POST /api/ingest, for their own site.
 */
import { randomBytes } from 'node:crypto';
import { KEY_REQUEST_ERRORS } from '../auth.ts';

const SITE_API_KEY = /^tt_[0-9a-f]{48}$/;

/** At most this many keys per site: enough for each service and environment, few enough to review. */
export const MAX_SITE_API_KEYS = 20;

export const isSiteApiKeyFormat = (secret: string): boolean => SITE_API_KEY.test(secret);

export const newSiteApiKeySecret = (): string => `tt_${randomBytes(24).toString('hex')}`;

export const MAX_SITE_KEY_LABEL = 100;
/** The one refusal of a create: the label, as a management key's (domain/auth.ts). */
export const SITE_KEY_REQUEST_ERRORS = [KEY_REQUEST_ERRORS[0]] as const;

/** A create request's label: optional, trimmed, at most 100 characters. */
export function parseSiteKeyRequest(body: unknown): { ok: true; label: string } | { ok: false; error: string } {
  if (body === undefined) return { ok: true, label: '' };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, error: SITE_KEY_REQUEST_ERRORS[0] };
  const label = (body as { label?: unknown }).label;
  if (label === undefined || label === null) return { ok: true, label: '' };
  if (typeof label !== 'string' || label.trim().length > MAX_SITE_KEY_LABEL) return { ok: false, error: SITE_KEY_REQUEST_ERRORS[0] };
  return { ok: true, label: label.trim() };
}
