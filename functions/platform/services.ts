/**
 * What handlers use, built once per instance: adapters chosen by the runtime
 * (functions/platform/local.ts or aws.ts) plus the per-instance caches.
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

export interface Services extends Adapters {
  /** Registered sites: 30 s when verified, 15 s when pending. */
  siteCache: TtlCache<string, SiteRecord>;
  /**
   * Hostnames the registry does not know, 15 s: apart from the sites so that
   * a flood of made-up names pushes out only other made-up names.
   */
  missingSites: TtlCache<string, true>;
  /** Management keys by secret hash: 30 s, so a revocation elsewhere takes effect within that. */
  keyCache: TtlCache<string, ManagementKeyRecord | null>;
  /** Changes made with a management key: burst 60, then 1 per second. */
  changeLimiter: TokenBucketLimiter;
  /** When this instance last recorded a key's use, to write last_used_at at most once a minute. */
  keyTouches: TtlCache<string, true>;
  /** Collector replay suppression by (site, id): bounded, per instance. */
  replays: TtlCache<string, true>;
  /** Today's visitor salt, so the registry is asked once a day per instance. */
  salts: TtlCache<string, string>;
  /** Hostnames whose automatic verification ran lately (pending sites are re-checked every 15 s at most). */
  verifyAttempts: TtlCache<string, true>;
  /** Sites whose last_seen_at this instance wrote lately. */
  siteSeen: TtlCache<string, true>;
  /**
   * Collector drops by hostname as sent, for GET …/setup. Null where the collector runs in
   * other instances than the setup route (AWS: one Lambda per route group), so setup never
   * shows an empty list that only means "not here".
   */
  recentDrops: DropCounts | null;
  /** The collector's bounded caches of client input (hostnames, user agents, zones, brands). */
  collectorCaches: CollectorCaches;
  /** Every beacon that stored nothing, counted by reason (and into recentDrops). */
  collectorDrops: DropLog;
}

export interface InstanceOptions {
  /** The collector and the product API share this process (the local node). */
  collectorInProcess?: boolean;
}

export const KEY_CACHE_TTL_MS = 30_000;
const MiB = 1024 * 1024;

export function withInstanceState(adapters: Adapters, { collectorInProcess = false }: InstanceOptions = {}): Services {
  const now = () => adapters.clock.now().getTime();
  const recentDrops = collectorInProcess ? new DropCounts(10_000, now, 4 * MiB) : null;
  return {
    ...adapters,
    siteCache: new TtlCache(50_000, now, 32 * MiB),
    missingSites: new TtlCache(20_000, now, 8 * MiB),
    keyCache: new TtlCache(10_000, now),
    changeLimiter: new TokenBucketLimiter(60, 1, now),
    keyTouches: new TtlCache(10_000, now),
    replays: new TtlCache(200_000, now, 32 * MiB),
    salts: new TtlCache(4, now),
    verifyAttempts: new TtlCache(10_000, now),
    siteSeen: new TtlCache(50_000, now),
    recentDrops,
    collectorCaches: new CollectorCaches(),
    collectorDrops: new DropLog(recentDrops),
  };
}

let current: Services | null = null;
let pending: Promise<Services> | null = null;

/** Set by the local server before it serves; Lambda builds the AWS services on first use. */
export function setServices(services: Services): void {
  current = services;
}

export async function getServices(): Promise<Services> {
  if (current) return current;
  pending ??= import('./aws.ts').then(async (m) => (current = withInstanceState(await m.createAwsAdapters())));
  return pending;
}
