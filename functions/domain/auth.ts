/**
 * Who is calling and what they may do (spec part 5): credential parsing,
 * management-key format and hashing, scope rules.
 */
import { createHash, randomBytes } from 'node:crypto';

export const SCOPES = ['read', 'manage', 'ingest'] as const;
export type Scope = (typeof SCOPES)[number];

export const MAX_ACTIVE_MANAGEMENT_KEYS = 10;
export const MAX_SITES_PER_ACCOUNT = 50;

const MANAGEMENT_KEY = /^tt_mk_[0-9a-f]{48}$/;

export type Credential = { kind: 'none' } | { kind: 'management_key'; secret: string } | { kind: 'bearer'; token: string };

export type Principal =
  | { kind: 'user'; uid: string; email?: string | undefined }
  | { kind: 'key'; uid: string; keyId: string; scopes: readonly Scope[]; secretHash: string };

/** The caller as resolved from the request: a valid principal, nobody, or a bearer that did not verify. */
export type Caller = { kind: 'anonymous'; invalidToken: boolean } | Principal;

export function parseAuthorization(header: string | undefined): Credential {
  if (!header) return { kind: 'none' };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { kind: 'bearer', token: '' };
  const token = match[1] as string;
  // Anything with the management-key prefix is judged as a key, so a malformed one is "invalid or revoked".
  if (token.startsWith('tt_mk_')) return { kind: 'management_key', secret: token };
  return { kind: 'bearer', token };
}

export const isManagementKeyFormat = (secret: string): boolean => MANAGEMENT_KEY.test(secret);

export function newManagementKeySecret(): string {
  return `tt_mk_${randomBytes(24).toString('hex')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Scopes do not include each other. An ID token may do everything its owner may. */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.kind === 'user' || principal.scopes.includes(scope);
}

export function parseScopes(value: unknown): Scope[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const out: Scope[] = [];
  for (const v of value) {
    if (typeof v !== 'string' || !(SCOPES as readonly string[]).includes(v)) return null;
    if (!out.includes(v as Scope)) out.push(v as Scope);
  }
  return SCOPES.filter((s) => out.includes(s));
}

/** The longest label a management key may have, in characters after trimming. */
export const MAX_KEY_LABEL = 100;
/** The texts parseKeyRequest answers with. */
export const KEY_REQUEST_ERRORS = ['invalid label', 'invalid scopes'] as const;
const [INVALID_LABEL, INVALID_SCOPES] = KEY_REQUEST_ERRORS;

/** A create-key body: `scopes` required, `label` optional (trimmed); a body that is no object reads as bad scopes. */
export function parseKeyRequest(body: unknown): { ok: true; label: string; scopes: Scope[] } | { ok: false; error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, error: INVALID_SCOPES };
  const fields = body as Record<string, unknown>;
  const label = fields.label === undefined ? '' : fields.label;
  if (typeof label !== 'string' || label.trim().length > MAX_KEY_LABEL) return { ok: false, error: INVALID_LABEL };
  const scopes = parseScopes(fields.scopes);
  if (!scopes) return { ok: false, error: INVALID_SCOPES };
  return { ok: true, label: label.trim(), scopes };
}
