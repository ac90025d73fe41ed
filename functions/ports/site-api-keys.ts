/**
 * Port: site API keys (`tt_` + 48 hex, DESIGN.md §4): they authenticate only
 * `POST /api/ingest` for their own site. Stored as SHA-256 of the secret.
 */
export interface SiteApiKeyRecord {
  id: string;
  /** The site's hostname and the registration the key was made for: a new registration of the hostname does not inherit it. */
  site: string;
  registration: string;
  owner_uid: string;
  secret_hash: string;
  label: string;
  created_at: string;
  /** When the secret was last replaced (rotate); null when never. */
  rotated_at: string | null;
  last_used_at: string | null;
}

export interface SiteApiKeys {
  /** False when the site already has `maxPerSite` keys. */
  createSiteApiKey(key: SiteApiKeyRecord, maxPerSite: number): Promise<boolean>;
  findSiteApiKey(secretHash: string): Promise<SiteApiKeyRecord | null>;
  listSiteApiKeys(site: string): Promise<SiteApiKeyRecord[]>;
  /** Replaces the secret; the old one (its hash returned) stops working. Null when unknown on that site. */
  rotateSiteApiKey(site: string, id: string, newSecretHash: string, at: string): Promise<{ key: SiteApiKeyRecord; previousHash: string } | null>;
  /** Removes the key; null when unknown on that site. */
  deleteSiteApiKey(site: string, id: string): Promise<SiteApiKeyRecord | null>;
  /** Records a use (at most once a minute per key and instance: the caller throttles). */
  touchSiteApiKey(site: string, id: string, at: string): Promise<void>;
}
