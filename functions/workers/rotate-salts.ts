/**
 * Scheduled (daily, at 00:00 UTC): deletes the visitor salts of every
 * day before today, so yesterday's hashes can never be recomputed. The store's
 * TTL is only a backstop: DynamoDB may take days to expire an item.
 */
import type { Timers } from '#ports/scheduler.ts';
import { utcDay } from '#domain/rows/days.ts';
import type { Clock } from '#ports/clock.ts';
import type { Registry } from '#ports/registry.ts';
import { log } from '#platform/log.ts';

export async function rotateSalts(registry: Registry, now: Date): Promise<number> {
  const deleted = await registry.deleteSaltsBefore(utcDay(now.getTime()));
  log.info('salts rotated', { deleted });
  return deleted;
}

/** The EventBridge schedule's handler over the registry its composition root built (handlers/rotate-salts.ts). */
export function createRotateSaltsHandler(registry: Registry, clock: Clock): () => Promise<{ deleted: number }> {
  return async () => ({ deleted: await rotateSalts(registry, clock.now()) });
}

const HOUR_MS = 60 * 60_000;

/** Milliseconds from `now` to the next 00:00 UTC. */
export function msToNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return next - now.getTime();
}

export type { Timers };

/** Node's timers, unref'd: a pending rotation (or a live stream's next update) never keeps the process alive. */
export const systemTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms).unref(),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * Local runtime: the same job at start, at every UTC day boundary (a timer to
 * the next midnight, by the service clock) and hourly as a backstop. The stop
 * function waits for a rotation in progress, so the store is not closed under it.
 */

export function scheduleSaltRotation(registry: Registry, now: () => Date, timers: Timers = systemTimers): () => Promise<void> {
  let timer: unknown = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = () => {
    running = rotateSalts(registry, now())
      .then(() => undefined)
      .catch((e: unknown) => log.error('salt rotation failed', { message: (e as Error).message }));
    arm();
  };
  const arm = () => {
    if (stopped) return;
    timer = timers.set(run, Math.min(msToNextUtcDay(now()), HOUR_MS));
  };
  run();
  return async () => {
    stopped = true;
    if (timer !== null) timers.clear(timer);
    await running;
  };
}
