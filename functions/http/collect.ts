/**
 * Ingestion as a list of named steps (STYLE.md): DNT, validation, hostname,
 * site lookup (with automatic verification), replay suppression, row, queue.
 * Every request that stores nothing says why, in one log field.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { normalizeHostname } from '#domain/hostname.ts';
import { memoize } from '#domain/memo.ts';
import { registrationOf } from '#domain/registration.ts';
import { isVerified } from '#domain/site.ts';
import { utcDay } from '#domain/collector/enrich.ts';
import { buildEventRow, type DailySalt, type DropReason } from '#domain/collector/event-row.ts';
import type { CollectorPayload } from '#domain/collector/payload.ts';
import type { EventRow } from '#ports/event-store.ts';
import { QueueFullError } from '#ports/queue.ts';
import type { SiteRecord } from '#ports/registry.ts';
import type { Services } from '#platform/services.ts';
import { findSite } from './auth.ts';
import { runVerification } from './verification.ts';

/** Automatic verification runs at most this often per hostname and instance (a pending site is cached 15 s). */
export const AUTO_VERIFY_INTERVAL_MS = 15_000;
const REPLAY_WINDOW_MS = 60 * 60_000;
const SEEN_INTERVAL_MS = 60_000;

export interface Beacon {
  payload: CollectorPayload;
  append: boolean;
  ip: string;
  headerUa: string;
  /** ApiRequest.servedOrigin: an origin that serves latest.js, for automatic verification. */
  servedOrigin?: string | undefined;
}

export type Outcome = { stored: true } | { stored: false; reason: DropReason };

const DROP_LOG_INTERVAL_MS = 10_000;
const drops = new Map<DropReason, number>();
let dropTimer: NodeJS.Timeout | null = null;

/** Writes the drop counts since the last flush as one log line: `{"msg":"collector drops","counts":{"dnt":3,…}}`. */
export function flushDrops(): void {
  if (dropTimer) clearTimeout(dropTimer);
  dropTimer = null;
  if (drops.size === 0) return;
  console.log(JSON.stringify({ level: 'info', msg: 'collector drops', counts: Object.fromEntries(drops) }));
  drops.clear();
}

/**
 * Counts a request that stores nothing, by reason. Counts are logged in one
 * line every 10 s rather than a line per request: a flood of replays or DNT
 * beacons must not turn into a flood of log writes.
 */
export function logDrop(reason: DropReason): void {
  drops.set(reason, (drops.get(reason) ?? 0) + 1);
  dropTimer ??= setTimeout(flushDrops, DROP_LOG_INTERVAL_MS).unref();
}

async function dailySalt(services: Services, now: number): Promise<DailySalt | null> {
  const day = utcDay(now);
  const cached = services.salts.get(day);
  if (cached) return { day, value: cached.value };
  try {
    const endOfDay = Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 86_400;
    const salt = await services.registry.getOrCreateDailySalt(day, randomBytes(32).toString('hex'), endOfDay);
    services.salts.set(day, salt, Math.max(1, endOfDay * 1000 - now));
    return { day, value: salt };
  } catch (e) {
    console.error(JSON.stringify({ level: 'error', msg: 'salt store failed', message: (e as Error).message }));
    return null;
  }
}

async function enqueue(services: Services, site: SiteRecord, beacon: Beacon): Promise<Outcome> {
  const now = services.clock.now().getTime();
  const built = buildEventRow(beacon.payload, {
    site: site.hostname,
    registration: registrationOf(site),
    append: beacon.append,
    now,
    ip: beacon.ip,
    headerUa: beacon.headerUa,
    salt: await dailySalt(services, now),
    newId: randomUUID,
  });
  if ('drop' in built) return { stored: false, reason: built.drop };
  if (beacon.payload.id && isReplay(services, built.row)) return { stored: false, reason: 'replay' };
  try {
    await services.eventQueue.send(built.row);
  } catch (e) {
    // A full queue is counted with the drops; anything else (a journal write failing) is worth a line each.
    if (e instanceof QueueFullError) return { stored: false, reason: 'queue_full' };
    console.error(JSON.stringify({ level: 'error', msg: 'event queue refused', message: (e as Error).message }));
    return { stored: false, reason: 'enqueue_failed' };
  }
  await markSeen(services, site.hostname, now);
  return { stored: true };
}

/**
 * Bounded, per instance: the same (site, id) within the window is a replay.
 * Only ids a client sent are remembered: a server-assigned id never repeats,
 * and remembering one per id-less beacon filled the cache with keys that can
 * never match (a full cache also evicts the client ids it is there for).
 */
function isReplay(services: Services, row: EventRow): boolean {
  const key = `${row.site}\n${row.id}`;
  if (services.replays.get(key)) return true;
  services.replays.set(key, true, REPLAY_WINDOW_MS);
  return false;
}

async function markSeen(services: Services, hostname: string, now: number): Promise<void> {
  if (services.siteSeen.get(hostname)) return;
  services.siteSeen.set(hostname, true, SEEN_INTERVAL_MS);
  await services.registry.recordSiteSeen(hostname, new Date(now).toISOString()).catch((e: unknown) => {
    console.error(JSON.stringify({ level: 'error', msg: 'recording last_seen_at failed', message: (e as Error).message }));
  });
}

/**
 * An unverified site gets one page check per interval and instance, inline so
 * that it also completes on Lambda. When it passes, the site is verified and
 * the beacon that triggered it is stored.
 */
async function verifyNow(services: Services, site: SiteRecord, servedOrigin: string | undefined): Promise<SiteRecord | null> {
  if (services.verifyAttempts.get(site.hostname)) return null;
  services.verifyAttempts.set(site.hostname, true, AUTO_VERIFY_INTERVAL_MS);
  const { site: after } = await runVerification(services, site, 'collect', { servedOrigin });
  return isVerified(after) ? after : null;
}

/** Beacons repeat a handful of hostnames; normalization (IDNA) is worth remembering. */
const normalizeBeaconHostname = memoize((hostname: string) => normalizeHostname(hostname));

/** Runs every step after validation. Fail-closed: unknown, unverified or unreadable sites store nothing. */
export async function collect(services: Services, beacon: Beacon): Promise<Outcome> {
  const normalized = normalizeBeaconHostname(beacon.payload.hostname);
  if (!normalized.ok) return { stored: false, reason: 'invalid_hostname' };
  let site: SiteRecord | null;
  try {
    site = await findSite(services, normalized.hostname);
  } catch (e) {
    console.error(JSON.stringify({ level: 'error', msg: 'site lookup failed', message: (e as Error).message }));
    return { stored: false, reason: 'lookup_failed' };
  }
  if (!site) return { stored: false, reason: 'unknown_site' };
  if (!isVerified(site)) {
    const verified = await verifyNow(services, site, beacon.servedOrigin).catch(() => null);
    if (!verified) return { stored: false, reason: 'unverified' };
    site = verified;
  }
  return enqueue(services, site, beacon);
}
