/**
 * What handlers use, built once per instance by a composition root: adapters
 * plus the per-instance caches. The local node builds all of it
 * (functions/platform/local.ts, withInstanceState); each Lambda entry
 * (functions/http/lambda/, functions/workers/handlers/) builds only the parts
 * its routes read, through the same builders below.
 */
import type { Config } from './config.ts';
import type { Clock } from '#ports/clock.ts';
import type { Registry, ManagementKeyRecord, SiteRecord } from '#ports/registry.ts';
import type { TokenVerifier } from '#ports/token-verifier.ts';
import type { PageChecker } from '#ports/page-checker.ts';
import type { EventRow } from '#ports/event-store.ts';
import type { Queue } from '#ports/queue.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { ImportChunkMessage, ImportJobs } from '#ports/import-jobs.ts';
import type { ImportSourceClient } from '#ports/import-source.ts';
import type { SecretBox } from '#ports/secret-box.ts';
import { TtlCache } from '#domain/ttl-cache.ts';
import { TokenBucketLimiter } from '#domain/rate-limit.ts';
import { DropCounts } from '#domain/recent-drops.ts';
import { CollectorCaches } from '#domain/collector/caches.ts';
import { DropLog } from './collector-drops.ts';

export interface Adapters {
  config: Readonly<Config>;
  clock: Clock;
  registry: Registry;
  tokens: TokenVerifier;
  pageChecker: PageChecker;
  /** Origins browsers load latest.js from (PUBLIC_URL; locally its default is set once the server listens). */
  publicOrigins: readonly string[];
  /** Collected rows on their way to the event store. */
  eventQueue: Queue<EventRow>;
  /** The built, minified latest.js. */
  trackerScript: string;
  reports: ReportStore;
  /** Import jobs, their progress, the daily limit and the per-site lock. */
  importJobs: ImportJobs;
  /** Import chunks on their way to the import worker. */
  importQueue: Queue<ImportChunkMessage>;
  /** Import credentials at rest. */
  secrets: SecretBox;
  /** The Simple Analytics export (credential test; the worker streams chunks through it). */
  importSource: ImportSourceClient;
}

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

/** The collector's own per-instance state. */
export interface CollectorState extends VerifyState {
  /** Collector replay suppression by (site, id): bounded, per instance. */
  replays: TtlCache<string, true>;
  /** Today's visitor salt, so the registry is asked once a day per instance. */
  salts: TtlCache<string, string>;
  /** Sites whose last_seen_at this instance wrote lately. */
  siteSeen: TtlCache<string, true>;
  /** The collector's bounded caches of client input (hostnames, user agents, zones, brands). */
  collectorCaches: CollectorCaches;
  /** Every beacon that stored nothing, counted by reason (and into recentDrops). */
  collectorDrops: DropLog;
}

export interface Services extends Adapters, SiteCaches, KeyState, CollectorState {
  /**
   * Collector drops by hostname as sent, for GET …/setup. Null where the collector runs in
   * other instances than the setup route (AWS: one Lambda per route group), so setup never
   * shows an empty list that only means "not here".
   */
  recentDrops: DropCounts | null;
}

export interface InstanceOptions {
  /** The collector and the product API share this process (the local node). */
  collectorInProcess?: boolean;
}

export const KEY_CACHE_TTL_MS = 30_000;
const MiB = 1024 * 1024;

type Now = () => number;
const nowOf = (clock: Clock): Now => () => clock.now().getTime();

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

/** `recentDrops`: where the setup route shares the process, the tallies it shows; null elsewhere. */
export function collectorState(clock: Clock, recentDrops: DropCounts | null = null): CollectorState {
  const now = nowOf(clock);
  return {
    ...verifyState(clock),
    replays: new TtlCache(200_000, now, 32 * MiB),
    salts: new TtlCache(4, now),
    siteSeen: new TtlCache(50_000, now),
    collectorCaches: new CollectorCaches(),
    collectorDrops: new DropLog(recentDrops),
  };
}

/** Every adapter and every cache: one process serving all route groups (the local node). */
export function withInstanceState(adapters: Adapters, { collectorInProcess = false }: InstanceOptions = {}): Services {
  const recentDrops = collectorInProcess ? new DropCounts(10_000, nowOf(adapters.clock), 4 * MiB) : null;
  return { ...adapters, ...siteCaches(adapters.clock), ...keyState(adapters.clock), ...collectorState(adapters.clock, recentDrops), recentDrops };
}
