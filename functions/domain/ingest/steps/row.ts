/** The row of an input at its site: today's salt, enrich (bot flag included), then the resend check. */
import { randomBytes, randomUUID } from 'node:crypto';
import { registrationOf } from '../../registration.ts';
import { drop, isDrop, type Drop } from '../drop.ts';
import { buildEventRow, type DailySalt } from '../event-row.ts';
import { sentHostname } from '../incoming.ts';
import type { Step } from '../pipeline.ts';
import type { CollectServices } from '../services.ts';
import type { AtSite } from './site.ts';
import type { EventRow } from '#domain/rows/event-row.ts';

export interface Built extends AtSite {
  row: EventRow;
  /** When the row was made (Unix ms). */
  now: number;
}

/**
 * How long this instance remembers a beacon's id to drop a quick resend before
 * it reaches the queue. Not the store's copy rule (COPY_WINDOW_MS, 24 h, in
 * domain/rows/flags): that one decides which stored rows are copies.
 */
const RESEND_MEMORY_MS = 60 * 60_000;

/** Today's salt, asked of the registry once a day per instance; null when the salt store fails (the row then has no visitor hash). */
function dailySalt(services: CollectServices, now: number): DailySalt | null | Promise<DailySalt | null> {
  const day = services.collectorCaches.utcDay(now);
  const cached = services.salts.value(day);
  if (cached !== undefined) return { day, value: cached };
  const endOfDay = Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 86_400;
  return services.registry.getOrCreateDailySalt(day, randomBytes(32).toString('hex'), endOfDay).then(
    (salt) => {
      services.salts.set(day, salt, Math.max(1, endOfDay * 1000 - now));
      return { day, value: salt };
    },
    (e: unknown) => {
      services.log.error('salt store failed', { message: (e as Error).message });
      return null;
    },
  );
}

function withSalt(services: CollectServices, { incoming, site, heldFor }: AtSite, now: number, salt: DailySalt | null): Built | Drop {
  const row = buildEventRow(
    incoming.payload,
    { site: site.hostname, registration: registrationOf(site), append: incoming.append, now, ip: incoming.ip, headerUa: incoming.headerUa, salt, newId: randomUUID },
    services.collectorCaches,
  );
  return isDrop(row) ? row : { incoming, site, heldFor, row, now };
}

/** Salt and enrich: a promise only when the salt must be read. */
export const rowStep: Step<AtSite, Built, CollectServices> = {
  name: 'row',
  run(value, services) {
    const now = services.clock.now().getTime();
    const salt = dailySalt(services, now);
    if (salt instanceof Promise) return salt.then((read) => withSalt(services, value, now, read));
    return withSalt(services, value, now, salt);
  },
  sentHostname,
};

/**
 * Resend: bounded, per instance, the same (site, id) within the window is a
 * resend, dropped (its drop reason keeps its first name, `replay`). Only ids a client sent are remembered: a server-assigned id never
 * repeats, and remembering one per id-less beacon filled the cache with keys
 * that can never match (a full cache also evicts the client ids it is there for).
 */
export const resendStep: Step<Built, Built, CollectServices> = {
  name: 'resend',
  run(value, services) {
    if (value.incoming.payload.id === null) return value;
    const key = `${value.row.site}\n${value.row.id}`;
    if (services.resends.has(key)) return drop('replay');
    services.resends.set(key, true, RESEND_MEMORY_MS);
    return value;
  },
  sentHostname,
};
