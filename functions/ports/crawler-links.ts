/**
 * Port: a site's link to a Cloudflare zone (issue 41), one per site, stored
 * under the site so a site delete (or the move that ends its registration)
 * removes it with its sealed token. `sealed_token` is the SecretBox's form
 * of the API token, bound to the site and registration; it never leaves the
 * server.
 */
export interface CrawlerLinkRecord {
  site: string;
  registration: string;
  owner_uid: string;
  zone_id: string;
  zone_name: string;
  sealed_token: string;
  linked_at: string;
  /** When the last sync finished (ISO), and its error text (null when it succeeded). */
  last_sync_at: string | null;
  last_error: string | null;
  /** The start of the first hour (ms) the next sync still reads; null before the first. */
  synced_through: number | null;
}

export type CrawlerSyncResult = Pick<CrawlerLinkRecord, 'last_sync_at' | 'last_error' | 'synced_through'>;

export interface CrawlerLinks {
  get(site: string): Promise<CrawlerLinkRecord | null>;
  /** Creates or replaces the site's link. */
  put(link: CrawlerLinkRecord): Promise<void>;
  /** False when there was none. */
  delete(site: string): Promise<boolean>;
  /** Records a sync's outcome, unless the link was removed or replaced (another zone_id) meanwhile. */
  recordSync(site: string, zoneId: string, result: CrawlerSyncResult): Promise<void>;
  /** Every link, for the hourly sync. */
  list(): Promise<CrawlerLinkRecord[]>;
}
