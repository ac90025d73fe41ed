/** The collector's per-instance state, apart so that only the roots that collect build (and bundle) it. */
import { CollectorCaches } from '#domain/ingest/caches.ts';
import type { DropCounts } from '#domain/recent-drops.ts';
import { TtlCache } from '#domain/ttl-cache.ts';
import type { CollectorMemory } from '#domain/ingest/services.ts';
import type { Clock } from '#ports/clock.ts';
import type { Logger } from '#ports/logger.ts';
import { DropLog } from './collector-drops.ts';
import { MiB, nowOf, verifyState } from './instance-state.ts';
import { log } from './log.ts';

/** The collector's own per-instance state. */
export interface CollectorState extends CollectorMemory {
  /** Every beacon that stored nothing, counted by reason (and into recentDrops). */
  collectorDrops: DropLog;
  /** Where the steps report a failing registry, salt store or queue. */
  log: Logger;
}

/** `recentDrops`: where the setup route shares the process, the tallies it shows; null elsewhere. */
export function collectorState(clock: Clock, recentDrops: DropCounts | null = null): CollectorState {
  const now = nowOf(clock);
  return {
    ...verifyState(clock),
    resends: new TtlCache(200_000, now, 32 * MiB),
    salts: new TtlCache(4, now),
    siteSeen: new TtlCache(50_000, now),
    collectorCaches: new CollectorCaches(),
    collectorDrops: new DropLog(recentDrops),
    log,
  };
}

