/** The last shared steps: the row into the queue (or held while its site's check runs), then the site's last_seen_at. */
import { drop, type Drop } from '../drop.ts';
import { sentHostname } from '../incoming.ts';
import type { Step } from '../pipeline.ts';
import type { CollectServices } from '../services.ts';
import type { Built } from './row.ts';
import type { HeldRows } from '#ports/held-rows.ts';
import { QueueFullError } from '#domain/queue-full.ts';
import type { SiteRecord } from '#ports/registry.ts';

const SEEN_INTERVAL_MS = 60_000;

/** Enqueue: a full queue is counted with the drops; anything else (a journal write failing) is worth a line each. */
async function enqueue(services: CollectServices, value: Built): Promise<Built | Drop> {
  try {
    await services.eventQueue.send(value.row);
    return value;
  } catch (e) {
    if (e instanceof QueueFullError) return drop('queue_full');
    services.log.error('event queue refused', { message: (e as Error).message });
    return drop('enqueue_failed');
  }
}

/** Hold: the row waits (durably) for the check that decides it; only where rows can be held does a beacon stop waiting (steps/verify.ts). */
async function hold(services: CollectServices, value: Built, decision: Promise<SiteRecord | null>): Promise<Built | Drop> {
  try {
    await (services.heldRows as HeldRows).hold(value.row, decision);
    return value;
  } catch (e) {
    services.log.error('holding a row failed', { message: (e as Error).message });
    return drop('enqueue_failed');
  }
}

export const storeStep: Step<Built, Built, CollectServices> = {
  name: 'store',
  run: (value, services) => (value.heldFor ? hold(services, value, value.heldFor) : enqueue(services, value)),
  sentHostname,
};

/** last_seen_at, written at most once a minute per site and instance; not for a held row, whose site is not verified yet. */
export const seenStep: Step<Built, Built, CollectServices> = {
  name: 'seen',
  run(value, services) {
    const hostname = value.site.hostname;
    if (value.heldFor || services.siteSeen.has(hostname)) return value;
    services.siteSeen.set(hostname, true, SEEN_INTERVAL_MS);
    return services.registry.recordSiteSeen(hostname, new Date(value.now).toISOString()).then(
      () => value,
      (e: unknown) => {
        services.log.error('recording last_seen_at failed', { message: (e as Error).message });
        return value;
      },
    );
  },
  sentHostname,
};
