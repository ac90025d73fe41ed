/** Port: reads a site's public page (and DNS TXT records) for ownership verification. */
import type { PageOutcome } from '#domain/site-verification.ts';

export interface PageCheckRequest {
  hostname: string;
  verifyToken: string;
  /** Origins this service serves latest.js from (PUBLIC_URL). */
  publicOrigins: readonly string[];
}

/**
 * Reachable (2xx within the limits, redirects only within the site): what the scan found, a
 * /latest.js on the site counted as this service's script only when it serves the build.
 * Otherwise why not (network, status, refused address, too many redirects, `offSite` for a redirect elsewhere).
 */
export type PageCheck = PageOutcome;

export interface PageChecker {
  checkPage(request: PageCheckRequest): Promise<PageCheck>;
  /** The bytes at `url` when they arrive whole within `maxBytes` (the site's icon), through the same address guard; else null. */
  fetchImage(url: string, maxBytes: number): Promise<Buffer | null>;
  /**
   * Whether a TXT record `<prefix><token>` is on the hostname itself; the prefix is
   * `tinytrack-verification=` unless given (a DNS claim's is `tinytrack-claim=`). Never for an empty token.
   */
  hasTxtRecord(hostname: string, token: string, prefix?: string): Promise<boolean>;
}
