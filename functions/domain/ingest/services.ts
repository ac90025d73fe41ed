/** What the shared ingest steps read and write: ports the composition root fills and the collector's own memory. */
import type { VerifyServices } from '../site-verification-run.ts';
import type { TtlCache } from '../ttl-cache.ts';
import type { CollectorCaches } from './caches.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { HeldRows } from '#ports/held-rows.ts';
import type { Logger } from '#ports/logger.ts';
import type { Queue } from '#ports/queue.ts';
import type { SiteRecord } from '#ports/registry.ts';

/** The collector's own per-instance memory, bounded, built by the composition root. */
export interface CollectorMemory {
  /** Hostnames whose automatic verification ran lately (pending sites are re-checked every 15 s at most). */
  verifyAttempts: TtlCache<string, true>;
  /**
   * The automatic verification running now, by hostname (single-flight: beacons that arrive
   * meanwhile wait for it); an entry lives as long as its check.
   */
  verifyRuns: Map<string, Promise<SiteRecord | null>>;
  /** The resends the collector refuses: (site, id) pairs it took lately. */
  resends: TtlCache<string, true>;
  /** Today's visitor salt, so the registry is asked once a day per instance. */
  salts: TtlCache<string, string>;
  /** Sites whose last_seen_at this instance wrote lately. */
  siteSeen: TtlCache<string, true>;
  /** The bounded caches of client input (hostnames, user agents, zones, brands). */
  collectorCaches: CollectorCaches;
}

/** What the steps read and write: the registry, the page checker, the queue, the log and the collector's memory. */
export interface CollectServices extends VerifyServices, CollectorMemory {
  eventQueue: Queue<EventRow>;
  log: Logger;
  /**
   * Where rows wait when their site's check outlasts VERIFY_WAIT_MS (a journal locally).
   * Absent (Lambda, no local disk): the beacon waits for the whole check, which the page
   * checker's own limits bound.
   */
  heldRows?: HeldRows | undefined;
}
