/**
 * The per-instance caches of the product route groups, each part built by
 * its own function so that a composition root builds only the parts its
 * routes read (functions/platform/services.ts composes them all).
 */
import { TtlCache } from '#domain/ttl-cache.ts';
import { TokenBucketLimiter } from '#domain/rate-limit.ts';
import type { Clock } from '#ports/clock.ts';
import type { SiteCaches } from '#domain/site-lookup.ts';
import { siteCheckState, type SiteCheckState } from '#domain/site-checks.ts';
import type { CollectorMemory } from '#domain/ingest/services.ts';
import type { ManagementKeyRecord } from '#ports/registry.ts';
import type { SiteApiKeyRecord } from '#ports/site-api-keys.ts';

export type { SiteCaches };

/** What the groups that authenticate callers keep about management keys. */
export interface KeyState {
  /** Management keys by secret hash: 30 s, so a revocation elsewhere takes effect within that. */
  keyCache: TtlCache<string, ManagementKeyRecord | null>;
  /** Changes made with a management key: burst 60, then 1 per second. */
  changeLimiter: TokenBucketLimiter;
  /** When this instance last recorded a key's use, to write last_used_at at most once a minute. */
  keyTouches: TtlCache<string, true>;
  /** Site API keys by secret hash (POST /api/ingest): 30 s, as management keys. */
  siteKeyCache: TtlCache<string, SiteApiKeyRecord | null>;
}

/** Hostnames whose automatic verification ran lately, and the checks running now. */
export type VerifyState = Pick<CollectorMemory, 'verifyAttempts' | 'verifyRuns'>;

export const KEY_CACHE_TTL_MS = 30_000;
export const MiB = 1024 * 1024;

export const nowOf = (clock: Clock): (() => number) => () => clock.now().getTime();

export function siteCaches(clock: Clock): SiteCaches {
  const now = nowOf(clock);
  return { siteCache: new TtlCache(50_000, now, 32 * MiB), missingSites: new TtlCache(20_000, now, 8 * MiB) };
}

export function keyState(clock: Clock): KeyState {
  const now = nowOf(clock);
  return {
    keyCache: new TtlCache(10_000, now),
    changeLimiter: new TokenBucketLimiter(60, 1, now),
    keyTouches: new TtlCache(10_000, now),
    siteKeyCache: new TtlCache(10_000, now),
  };
}

export function verifyState(clock: Clock): VerifyState {
  return { verifyAttempts: new TtlCache(10_000, nowOf(clock)), verifyRuns: new Map() };
}


/** Bounds on the page checks signed-in callers cause (domain/site-checks.ts). */
export const checkState = (clock: Clock): SiteCheckState => siteCheckState(nowOf(clock));
