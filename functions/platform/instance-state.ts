/**
 * The per-instance caches of the product route groups, each part built by
 * its own function so that a composition root builds only the parts its
 * routes read (functions/platform/services.ts composes them all).
 */
import { TtlCache } from '#domain/ttl-cache.ts';
import { TokenBucketLimiter } from '#domain/rate-limit.ts';
import type { Clock } from '#ports/clock.ts';
import type { ManagementKeyRecord, SiteRecord } from '#ports/registry.ts';

/** Sites by hostname, kept by every group that looks one up. */
export interface SiteCaches {
  /** Registered sites: 30 s when verified, 15 s when pending. */
  siteCache: TtlCache<string, SiteRecord>;
  /**
   * Hostnames the registry does not know, 15 s: apart from the sites so that
   * a flood of made-up names pushes out only other made-up names.
   */
  missingSites: TtlCache<string, true>;
}

/** What the groups that authenticate callers keep about management keys. */
export interface KeyState {
  /** Management keys by secret hash: 30 s, so a revocation elsewhere takes effect within that. */
  keyCache: TtlCache<string, ManagementKeyRecord | null>;
  /** Changes made with a management key: burst 60, then 1 per second. */
  changeLimiter: TokenBucketLimiter;
  /** When this instance last recorded a key's use, to write last_used_at at most once a minute. */
  keyTouches: TtlCache<string, true>;
}

/** Hostnames whose automatic verification ran lately (pending sites are re-checked every 15 s at most). */
export interface VerifyState {
  verifyAttempts: TtlCache<string, true>;
}

export const KEY_CACHE_TTL_MS = 30_000;
export const MiB = 1024 * 1024;

export const nowOf = (clock: Clock): (() => number) => () => clock.now().getTime();

export function siteCaches(clock: Clock): SiteCaches {
  const now = nowOf(clock);
  return { siteCache: new TtlCache(50_000, now, 32 * MiB), missingSites: new TtlCache(20_000, now, 8 * MiB) };
}

export function keyState(clock: Clock): KeyState {
  const now = nowOf(clock);
  return { keyCache: new TtlCache(10_000, now), changeLimiter: new TokenBucketLimiter(60, 1, now), keyTouches: new TtlCache(10_000, now) };
}

export function verifyState(clock: Clock): VerifyState {
  return { verifyAttempts: new TtlCache(10_000, nowOf(clock)) };
}

