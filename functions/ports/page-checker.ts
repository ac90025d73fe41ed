/** Port: fetches a site's public page and says whether the tracking script or token is on it. */
export interface PageCheck {
  /** The page answered 2xx within the limits. */
  reachable: boolean;
  /** A <script> whose src path ends in /latest.js. */
  scriptFound: boolean;
  /** The site's verify_token appears in the page. */
  tokenFound: boolean;
  /** Why the page could not be read (network, status, refused address, too many redirects). */
  error?: string;
}

export interface PageChecker {
  checkPage(hostname: string, verifyToken: string): Promise<PageCheck>;
}
