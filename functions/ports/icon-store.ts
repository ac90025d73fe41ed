/**
 * Port: each site's stored icon (spec part 3: deleted with the site). Files
 * in DATA_DIR locally, an S3 bucket on AWS.
 */
export interface SiteIcon {
  /** The image as fetched; null when the last look found none. */
  image: { body: Buffer; contentType: string } | null;
  /** When the site was last looked at (ISO 8601): a refresh is due a week later. */
  checkedAt: string;
}

export interface IconStore {
  get(hostname: string): Promise<SiteIcon | null>;
  put(hostname: string, icon: SiteIcon): Promise<void>;
  /** Removes the icon; nothing happens when there is none. */
  delete(hostname: string): Promise<void>;
}
