/**
 * Sites by hostname through the instance's caches, shared by the product
 * API's access rules and the collector: a verified site is believed for 30 s,
 * a pending one and a missing name for 15 s, and a change made here is known
 * here at once.
 */
import { isNormalizedHostname } from './hostname-form.ts';
import { SITE_CACHE_TTL_PENDING_MS, SITE_CACHE_TTL_VERIFIED_MS, isVerified } from './site.ts';
import type { TtlCache } from './ttl-cache.ts';
import type { DailySalts, SiteRecord, SiteRegistry } from '#ports/registry.ts';

/** Sites by hostname, kept by every instance that looks one up. */
export interface SiteCaches {
  /** Registered sites: 30 s when verified, 15 s when pending. */
  siteCache: TtlCache<string, SiteRecord>;
  /**
   * Hostnames the registry does not know, 15 s: apart from the sites so that
   * a flood of made-up names pushes out only other made-up names.
   */
  missingSites: TtlCache<string, true>;
}

/** What a look-up reads: the registry behind the caches. */
export interface SiteLookup extends SiteCaches {
  /** Sites and their day's salt: all a collector reads of the registry (its bundle leaves claims and keys out). */
  registry: SiteRegistry & DailySalts;
}

function cacheSite(services: SiteCaches, hostname: string, site: SiteRecord | null): void {
  if (site) {
    services.missingSites.delete(hostname);
    services.siteCache.set(hostname, site, isVerified(site) ? SITE_CACHE_TTL_VERIFIED_MS : SITE_CACHE_TTL_PENDING_MS);
  } else {
    services.siteCache.delete(hostname);
    services.missingSites.set(hostname, true, SITE_CACHE_TTL_PENDING_MS);
  }
}

/** The site as the per-instance caches know it: the record, null when known to be missing, undefined when not cached. */
export function cachedSite(services: SiteCaches, hostname: string): SiteRecord | null | undefined {
  const site = services.siteCache.value(hostname);
  if (site) return site;
  return services.missingSites.has(hostname) ? null : undefined;
}

/** Through the per-instance caches; `fresh` when the registry was read just now. */
async function lookupSite(services: SiteLookup, hostname: string): Promise<{ site: SiteRecord | null; fresh: boolean }> {
  const cached = cachedSite(services, hostname);
  if (cached !== undefined) return { site: cached, fresh: false };
  // Sites are registered under their normalized name and path values are not normalized (spec part 4), so any
  // other name is unknown without asking; an overlong one would fail on the store's key size limit instead.
  if (!isNormalizedHostname(hostname)) return { site: null, fresh: true };
  const site = await services.registry.getSite(hostname);
  cacheSite(services, hostname, site);
  return { site, fresh: true };
}

/** Site lookup through the per-instance cache. */
export async function findSite(services: SiteLookup, hostname: string): Promise<SiteRecord | null> {
  return (await lookupSite(services, hostname)).site;
}

/**
 * A cached entry that denies or limits an owner is re-read before it is
 * believed (spec part 4 rule 4), so owners never see a stale "missing",
 * "someone else's" or "unverified"; an entry read just now is not read twice.
 */
export async function findSiteFor(services: SiteLookup, hostname: string, uid: string): Promise<SiteRecord | null> {
  const { site, fresh } = await lookupSite(services, hostname);
  if (fresh || (site && site.owner_uid === uid && isVerified(site))) return site;
  const again = await services.registry.getSite(hostname);
  cacheSite(services, hostname, again);
  return again;
}

/** After a change: this instance forgets (or learns) the registration at once. */
export function siteChanged(services: SiteCaches, hostname: string, site: SiteRecord | null): void {
  if (site) cacheSite(services, hostname, site);
  else {
    services.siteCache.delete(hostname);
    services.missingSites.delete(hostname);
  }
}

/** A change another process made (the operator's CLI): the registration is read again now, so this instance's view changes at once. */
export async function siteRead(services: SiteLookup, hostname: string): Promise<void> {
  siteChanged(services, hostname, await services.registry.getSite(hostname));
}
