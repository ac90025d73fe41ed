/**
 * Port: secret share links (issue 40, part 5). A link is a record under its
 * site (SiteRecords: a site delete or the move that ends a registration
 * sweeps it), found by its slug's hash; password guesses are counted per link
 * and minute in the store, so the limit holds across instances; grants are
 * signed with a secret the service makes on first use.
 */
import type { SiteRecords } from './goals.ts';

export interface ShareLinkRecord {
  id: string;
  site: string;
  owner_uid: string;
  label: string;
  /** SHA-256 of the slug, hex: the slug itself is never stored. */
  slug_hash: string;
  /** scrypt of the password (functions/domain/sharing/password.ts), or null without one. */
  password_hash: string | null;
  created_at: string;
}

export interface ShareLinks {
  readonly links: SiteRecords<ShareLinkRecord>;
  /** The live link with this slug hash, or null. */
  findBySlugHash(slugHash: string): Promise<ShareLinkRecord | null>;
  /**
   * Counts one password guess on a link in the minute starting at `window` (ms): false when the
   * link already had `max` guesses in it (or is gone).
   */
  takeGuess(site: string, id: string, window: number, max: number): Promise<boolean>;
  /** The secret read grants are signed with, made on first use. */
  grantSecret(): Promise<Buffer>;
}
