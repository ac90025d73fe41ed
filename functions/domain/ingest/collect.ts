/**
 * The collector's steps after parse, DNT and validation, in order: normalize
 * hostname → look up site → verify → enrich (bot flag included) → replay →
 * enqueue. Each returns what it made or a Drop, through ports the
 * composition root fills (registry, page checker, queue, log) and caches it
 * builds; each answers from those caches without a promise when it can, so a
 * beacon for a known site awaits only its queue.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { registrationOf } from '../registration.ts';
import { isVerified } from '../site.ts';
import { cachedSite, findSite } from '../site-lookup.ts';
import { runVerification, type VerifyServices } from '../site-verification-run.ts';
import type { TtlCache } from '../ttl-cache.ts';
import type { CollectorCaches } from './caches.ts';
import { drop, isDrop, type Drop } from './drop.ts';
import { buildEventRow, type DailySalt } from './event-row.ts';
import type { CollectorPayload } from './payload.ts';
import type { EventRow } from '#ports/event-store.ts';
import type { HeldRows } from '#ports/held-rows.ts';
import type { Logger } from '#ports/logger.ts';
import { QueueFullError, type Queue } from '#ports/queue.ts';
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
  /** Collector replay suppression by (site, id). */
  replays: TtlCache<string, true>;
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

/** Automatic verification runs at most this often per hostname and instance (a pending site is cached 15 s). */
export const AUTO_VERIFY_INTERVAL_MS = 15_000;
/** How long a beacon waits for its site's running check before its row is held (HeldRows) and it is answered. */
export const VERIFY_WAIT_MS = 3_000;
/**
 * How long this instance remembers a beacon's id to drop a quick resend before
 * it reaches the queue. Not the store's replay rule (REPLAY_WINDOW_MS, 24 h, in
 * domain/event-flags): that one decides the `replay` flag of every stored row.
 */
const RESEND_MEMORY_MS = 60 * 60_000;
const SEEN_INTERVAL_MS = 60_000;

export interface Beacon {
  payload: CollectorPayload;
  append: boolean;
  ip: string;
  headerUa: string;
  /** ApiRequest.servedOrigin: an origin that serves latest.js, for automatic verification. */
  servedOrigin?: string | undefined;
}

/** Normalize hostname: the registry's form of the name the beacon sent (IDNA and all), cached per name. */
function normalizedHostname(caches: CollectorCaches, sent: string): string | Drop {
  const normalized = caches.hostnames(sent);
  return normalized.ok ? normalized.hostname : drop('invalid_hostname');
}

const siteOrUnknown = (site: SiteRecord | null): SiteRecord | Drop => site ?? drop('unknown_site');

/** Look up site: from the instance's caches, else the registry. Fail-closed: an unreadable registry stores nothing. */
function lookUpSite(services: CollectServices, hostname: string): SiteRecord | Drop | Promise<SiteRecord | Drop> {
  const cached = cachedSite(services, hostname);
  if (cached !== undefined) return siteOrUnknown(cached);
  return findSite(services, hostname).then(siteOrUnknown, (e: unknown) => {
    services.log.error('site lookup failed', { message: (e as Error).message });
    return drop('lookup_failed');
  });
}

/**
 * Verify: an unverified site gets one page check per interval and instance,
 * inline so that it also completes on Lambda. The check is single-flight:
 * every beacon that arrives while it runs waits for the same check, so a site
 * going live loses none of its first beacons. Null: no check runs, and the
 * last one, under AUTO_VERIFY_INTERVAL_MS ago, failed.
 */
function verificationRun(services: CollectServices, site: SiteRecord, servedOrigin: string | undefined): Promise<SiteRecord | null> | null {
  const running = services.verifyRuns.get(site.hostname);
  if (running) return running;
  if (services.verifyAttempts.has(site.hostname)) return null;
  services.verifyAttempts.set(site.hostname, true, AUTO_VERIFY_INTERVAL_MS);
  const run = runVerification(services, site, 'collect', { servedOrigin })
    .then(
      ({ site: after }) => (isVerified(after) ? after : null),
      () => null,
    )
    .finally(() => services.verifyRuns.delete(site.hostname));
  services.verifyRuns.set(site.hostname, run);
  return run;
}

const WAITED_TOO_LONG = Symbol('waited too long');

/** The run's outcome, or WAITED_TOO_LONG after `ms`. */
function within<T>(run: Promise<T>, ms: number): Promise<T | typeof WAITED_TOO_LONG> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<typeof WAITED_TOO_LONG>((ok) => {
    timer = setTimeout(() => ok(WAITED_TOO_LONG), ms);
    timer.unref();
  });
  return Promise.race([run, bound]).finally(() => clearTimeout(timer));
}

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

/**
 * Replay: bounded, per instance, the same (site, id) within the window is a
 * replay. Only ids a client sent are remembered: a server-assigned id never
 * repeats, and remembering one per id-less beacon filled the cache with keys
 * that can never match (a full cache also evicts the client ids it is there for).
 */
function unlessReplay(services: CollectServices, row: EventRow, clientId: boolean): EventRow | Drop {
  if (!clientId) return row;
  const key = `${row.site}\n${row.id}`;
  if (services.replays.has(key)) return drop('replay');
  services.replays.set(key, true, RESEND_MEMORY_MS);
  return row;
}

/** Enqueue: a full queue is counted with the drops; anything else (a journal write failing) is worth a line each. */
async function enqueue(services: CollectServices, row: EventRow): Promise<Drop | null> {
  try {
    await services.eventQueue.send(row);
    return null;
  } catch (e) {
    if (e instanceof QueueFullError) return drop('queue_full');
    services.log.error('event queue refused', { message: (e as Error).message });
    return drop('enqueue_failed');
  }
}

/** last_seen_at, written at most once a minute per site and instance. */
function markSeen(services: CollectServices, hostname: string, now: number): Promise<void> | null {
  if (services.siteSeen.has(hostname)) return null;
  services.siteSeen.set(hostname, true, SEEN_INTERVAL_MS);
  return services.registry.recordSiteSeen(hostname, new Date(now).toISOString()).catch((e: unknown) => {
    services.log.error('recording last_seen_at failed', { message: (e as Error).message });
  });
}

/** The beacon's row for `site`: salt, enrich (bot flag included), replay; a promise only when the salt must be read. */
function rowFor(services: CollectServices, beacon: Beacon, site: SiteRecord, now: number): EventRow | Drop | Promise<EventRow | Drop> {
  const salt = dailySalt(services, now);
  if (salt instanceof Promise) return salt.then((read) => rowWithSalt(services, beacon, site, now, read));
  return rowWithSalt(services, beacon, site, now, salt);
}

function rowWithSalt(services: CollectServices, beacon: Beacon, site: SiteRecord, now: number, salt: DailySalt | null): EventRow | Drop {
  const built = buildEventRow(
    beacon.payload,
    { site: site.hostname, registration: registrationOf(site), append: beacon.append, now, ip: beacon.ip, headerUa: beacon.headerUa, salt, newId: randomUUID },
    services.collectorCaches,
  );
  if (isDrop(built)) return built;
  return unlessReplay(services, built, beacon.payload.id !== null);
}

/**
 * The beacon of a site not verified yet: it waits for the site's check (at most
 * VERIFY_WAIT_MS where rows can be held) and is stored when the check passes.
 * A check that runs longer decides the held row when it ends.
 */
async function collectPending(services: CollectServices, beacon: Beacon, site: SiteRecord): Promise<Drop | null> {
  const run = verificationRun(services, site, beacon.servedOrigin);
  if (!run) return drop('unverified');
  const held = services.heldRows;
  const outcome = held ? await within(run, VERIFY_WAIT_MS) : await run;
  if (outcome === null) return drop('unverified');
  if (outcome !== WAITED_TOO_LONG) return collectVerified(services, beacon, outcome);
  // Built from the record as it was (the same registration the check verifies); held decides it.
  const row = await rowFor(services, beacon, site, services.clock.now().getTime());
  if (isDrop(row)) return row;
  try {
    await (held as HeldRows).hold(row, run);
    return null;
  } catch (e) {
    services.log.error('holding a row failed', { message: (e as Error).message });
    return drop('enqueue_failed');
  }
}

async function collectVerified(services: CollectServices, beacon: Beacon, site: SiteRecord): Promise<Drop | null> {
  const now = services.clock.now().getTime();
  const made = rowFor(services, beacon, site, now);
  const row = made instanceof Promise ? await made : made;
  if (isDrop(row)) return row;
  const refused = await enqueue(services, row);
  if (refused) return refused;
  const seen = markSeen(services, site.hostname, now);
  if (seen) await seen;
  return null;
}

/** Runs every step after validation: null when the row was taken, else why nothing was stored. */
export async function collect(services: CollectServices, beacon: Beacon): Promise<Drop | null> {
  const hostname = normalizedHostname(services.collectorCaches, beacon.payload.hostname);
  if (isDrop(hostname)) return hostname;
  const lookedUp = lookUpSite(services, hostname);
  const site = lookedUp instanceof Promise ? await lookedUp : lookedUp;
  if (isDrop(site)) return site;
  return isVerified(site) ? collectVerified(services, beacon, site) : collectPending(services, beacon, site);
}
