/**
 * Bounds on what a signed-in caller can make this service fetch from the web
 * (DESIGN §3's page checks): a site's page check is kept 60 s with at most
 * one fetch of it in flight per instance (the setup view and the icon read
 * it), explicit checks (verify, a DNS claim) are limited to 10 a minute per
 * account and per site, and a site's icon is refreshed by one request at a
 * time.
 */
import { ChecksRateLimitedError } from './errors.ts';
import { TokenBucketLimiter } from './rate-limit.ts';
import { TtlCache } from './ttl-cache.ts';
import type { SiteIcon } from '#ports/icon-store.ts';
import type { PageCheck, PageCheckRequest, PageChecker } from '#ports/page-checker.ts';

/** How long a page check is believed for the setup view and icon refreshes. */
export const PAGE_CHECK_TTL_MS = 60_000;
/** Explicit checks (verify, claim verify) per account and per site, a minute. */
export const CHECKS_PER_MINUTE = 10;

export interface SiteCheckState {
  /** Page checks by site and the origins they were judged for; a promise while its fetch runs, so one runs per site. */
  pageChecks: TtlCache<string, Promise<PageCheck>>;
  /** Explicit checks by account, and by site: CHECKS_PER_MINUTE each, refilled over the minute. */
  accountChecks: TokenBucketLimiter;
  siteChecks: TokenBucketLimiter;
  /** Icon refreshes running now, by hostname. */
  iconRefreshes: Map<string, Promise<SiteIcon>>;
}

export function siteCheckState(now: () => number): SiteCheckState {
  const limiter = () => new TokenBucketLimiter(CHECKS_PER_MINUTE, CHECKS_PER_MINUTE / 60, now);
  return { pageChecks: new TtlCache(10_000, now), accountChecks: limiter(), siteChecks: limiter(), iconRefreshes: new Map() };
}

const pageCheckKey = (request: PageCheckRequest): string => `${request.hostname}\n${request.publicOrigins.join(' ')}`;

/** The page check of the last 60 s, or the one in flight, or a new one (kept when it settles). */
export function cachedPageCheck(services: { pageChecker: PageChecker; pageChecks: SiteCheckState['pageChecks'] }, request: PageCheckRequest): Promise<PageCheck> {
  const key = pageCheckKey(request);
  const kept = services.pageChecks.value(key);
  if (kept) return kept;
  const check = services.pageChecker.checkPage(request);
  services.pageChecks.set(key, check, PAGE_CHECK_TTL_MS);
  // A check that throws is not kept: the next read asks again.
  check.catch(() => services.pageChecks.delete(key));
  return check;
}

/** A check made just now (verify, the collector's) replaces the kept one. */
export function keepPageCheck(services: { pageChecks?: SiteCheckState['pageChecks'] | undefined }, request: PageCheckRequest, page: PageCheck): void {
  services.pageChecks?.set(pageCheckKey(request), Promise.resolve(page), PAGE_CHECK_TTL_MS);
}

/** One explicit check for `uid` on `hostname`, or ChecksRateLimitedError with the whole seconds to wait. */
export function takeCheck(services: Pick<SiteCheckState, 'accountChecks' | 'siteChecks'>, uid: string, hostname: string): void {
  const waitMs = Math.max(services.accountChecks.waitMs(uid), services.siteChecks.waitMs(hostname));
  if (waitMs > 0) throw new ChecksRateLimitedError(Math.ceil(waitMs / 1000));
  services.accountChecks.take(uid);
  services.siteChecks.take(hostname);
}

/** `refresh` for `hostname` unless one runs already, whose outcome every caller then shares. */
export function singleIconRefresh(services: Pick<SiteCheckState, 'iconRefreshes'>, hostname: string, refresh: () => Promise<SiteIcon>): Promise<SiteIcon> {
  const running = services.iconRefreshes.get(hostname);
  if (running) return running;
  const started = refresh().finally(() => services.iconRefreshes.delete(hostname));
  services.iconRefreshes.set(hostname, started);
  return started;
}
