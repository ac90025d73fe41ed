/**
 * Site verification runs (DESIGN §3), shared by POST …/verify, GET …/setup and the collector's
 * automatic check: read the page (and for an explicit check the DNS TXT record), judge, record.
 */
import { isVerified } from './site.ts';
import { siteChanged, type SiteLookup } from './site-lookup.ts';
import { judgeVerification, type SiteCheck, type Verification } from './site-verification.ts';
import type { Clock } from '#ports/clock.ts';
import type { PageCheck, PageChecker } from '#ports/page-checker.ts';
import type { SiteRecord } from '#ports/registry.ts';
import { cachedPageCheck, keepPageCheck, type SiteCheckState } from './site-checks.ts';

/** The origins browsers load latest.js from (PUBLIC_URL's first). */
export interface PublicOrigins {
  publicOrigins: readonly string[];
}

/** What a verification run reads: the page checker, the origins that serve latest.js, the registry. */
export interface VerifyServices extends SiteLookup, PublicOrigins {
  clock: Clock;
  pageChecker: PageChecker;
  /** Where this instance keeps page checks (site-checks.ts); a fresh check replaces the kept one. */
  pageChecks?: SiteCheckState['pageChecks'] | undefined;
}

export interface CheckOptions {
  /**
   * The origin this request arrived on, when the platform vouches for it (Lambda's
   * requestContext.domainName; never a client's Host header): it serves latest.js too.
   */
  servedOrigin?: string | undefined;
}

/** The origins that serve latest.js, PUBLIC_URL's first. */
export function originsFor(services: PublicOrigins, { servedOrigin }: CheckOptions): readonly string[] {
  return servedOrigin && !services.publicOrigins.includes(servedOrigin) ? [...services.publicOrigins, servedOrigin] : services.publicOrigins;
}

/** Judges the page as checked within the last minute (or now), changing nothing (the setup view, icon refreshes). */
export async function checkSite(
  services: VerifyServices & Pick<SiteCheckState, 'pageChecks'>,
  site: SiteRecord,
  options: CheckOptions = {},
): Promise<{ page: PageCheck; verification: Verification }> {
  const publicOrigins = originsFor(services, options);
  const page = await cachedPageCheck(services, { hostname: site.hostname, verifyToken: site.verify_token, publicOrigins });
  return { page, verification: judgeVerification(page, false, publicOrigins) };
}

/**
 * Runs a verification attempt and records it on the site; a pass verifies the site (the first
 * verified_at is kept). Only an explicit attempt (`verify`) also reads the DNS TXT record.
 */
export async function runVerification(
  services: VerifyServices,
  site: SiteRecord,
  trigger: SiteCheck['trigger'],
  options: CheckOptions = {},
): Promise<{ site: SiteRecord; verification: Verification; page: PageCheck }> {
  const publicOrigins = originsFor(services, options);
  const request = { hostname: site.hostname, verifyToken: site.verify_token, publicOrigins };
  const page = await services.pageChecker.checkPage(request);
  keepPageCheck(services, request, page);
  let verification = judgeVerification(page, false, publicOrigins);
  if (!verification.ok && trigger === 'verify' && (await services.pageChecker.hasTxtRecord(site.hostname, site.verify_token))) {
    verification = judgeVerification(page, true, publicOrigins);
  }
  const now = services.clock.now().toISOString();
  let current = site;
  if (verification.ok && !isVerified(site)) current = (await services.registry.markVerified(site.hostname, now)) ?? current;
  // Null: the site was deleted meanwhile, and the cache must forget it.
  const recorded = await services.registry.recordCheck(site.hostname, { ...verification, checked_at: now, trigger });
  siteChanged(services, site.hostname, recorded);
  return { site: recorded ?? current, verification, page };
}
