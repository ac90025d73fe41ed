/** The collector's per-instance state, apart so that only the roots that collect build (and bundle) it. */
import { CollectorCaches } from '#domain/collector/caches.ts';
import type { DropCounts } from '#domain/recent-drops.ts';
import { TtlCache } from '#domain/ttl-cache.ts';
import type { Clock } from '#ports/clock.ts';
import { DropLog } from './collector-drops.ts';
import { MiB, nowOf, verifyState, type VerifyState } from './instance-state.ts';

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

