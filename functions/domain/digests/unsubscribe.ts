/**
 * Unsubscribe links of e-mail digests (issue 38): one per recipient and
 * digest, signed with the service's secret (HMAC-SHA-256), so a link works
 * without sign-in and removes that recipient only. The link names the
 * recipient by a hash, never by address: links end up in logs and browser
 * histories.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { DigestRef } from '#ports/email-reports.ts';

/** A recipient as a link names it: 16 bytes of the SHA-256 of the address, lower-cased. */
export const recipientHash = (address: string): string => createHash('sha256').update(address.trim().toLowerCase()).digest('base64url').slice(0, 22);

const refParts = (ref: DigestRef): string[] => (ref.kind === 'site' ? ['site', ref.site, ref.id] : ['workspace', ref.owner_uid]);

const mac = (secret: Buffer, body: string) => createHmac('sha256', secret).update(body).digest('base64url');

/** The token of `address`'s link for a digest. */
export function unsubscribeToken(secret: Buffer, ref: DigestRef, address: string): string {
  const body = Buffer.from(JSON.stringify([...refParts(ref), recipientHash(address)])).toString('base64url');
  return `${body}.${mac(secret, body)}`;
}

/** What a token names, or null when it is not one this secret signed. */
export function readUnsubscribeToken(secret: Buffer, token: string): { ref: DigestRef; recipient: string } | null {
  const [body, signature, ...rest] = token.split('.');
  if (!body || !signature || rest.length > 0 || token.length > 1024) return null;
  const expected = Buffer.from(mac(secret, body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parts) || !parts.every((p) => typeof p === 'string')) return null;
  const [kind, ...fields] = parts as string[];
  if (kind === 'site' && fields.length === 3) return { ref: { kind, site: fields[0]!, id: fields[1]! }, recipient: fields[2]! };
  if (kind === 'workspace' && fields.length === 2) return { ref: { kind, owner_uid: fields[0]! }, recipient: fields[1]! };
  return null;
}

/** The address among `recipients` a link's recipient hash names, or null (already removed). */
export const recipientOf = (recipients: readonly string[], hash: string): string | null => recipients.find((r) => recipientHash(r) === hash) ?? null;
