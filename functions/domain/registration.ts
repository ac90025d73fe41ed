/**
 * Which registration a stored row belongs to. Rows are tied to the
 * registration that collected or imported them, so history never passes to
 * another account that registers the same hostname later, while the same
 * account registering it again finds its own rows (spec part 3: collected
 * and imported analytics remain). The key is derived, not stored: the same
 * (owner, hostname) always gives the same key, and the hostname being part
 * of it means a key belongs to one hostname only.
 */
import { createHash } from 'node:crypto';

/** Rows that belong to no registration (stored for a hostname nobody held when they were assigned): shown to no one. */
export const NO_REGISTRATION = '';

/** 16 hex characters (64 bits) of SHA-256 over the owner and the hostname. */
export function registrationKey(ownerUid: string, hostname: string): string {
  return createHash('sha256').update(`${ownerUid}\u0000${hostname}`).digest('hex').slice(0, 16);
}

/** Per record object: the collector asks for every beacon, with the same cached site record for up to 30 s. */
const known = new WeakMap<object, string>();

/** The registration key of a site record. */
export function registrationOf(site: { readonly owner_uid: string; readonly hostname: string }): string {
  let key = known.get(site);
  if (key === undefined) {
    key = registrationKey(site.owner_uid, site.hostname);
    known.set(site, key);
  }
  return key;
}

/** The current registration key of each hostname that is registered now (for migrating rows stored before keys existed). */
export async function currentRegistrations(
  registry: { getSite(hostname: string): Promise<{ owner_uid: string; hostname: string } | null> },
  hostnames: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const hostname of hostnames) {
    const site = await registry.getSite(hostname);
    if (site) out.set(hostname, registrationOf(site));
  }
  return out;
}
