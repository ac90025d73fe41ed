/**
 * Scheduled (daily, just after 00:00 UTC): deletes the visitor salts of every
 * day before today, so yesterday's hashes can never be recomputed. The store's
 * TTL is only a backstop: DynamoDB may take days to expire an item.
 */
import { utcDay } from '#domain/collector/enrich.ts';
import type { Registry } from '#ports/registry.ts';
import { getServices } from '#platform/services.ts';
import { log } from '#platform/log.ts';

export async function rotateSalts(registry: Registry, now: Date): Promise<number> {
  const deleted = await registry.deleteSaltsBefore(utcDay(now.getTime()));
  log.info('salts rotated', { deleted });
  return deleted;
}

/** EventBridge schedule entry point. */
export async function handler(): Promise<{ deleted: number }> {
  const services = await getServices();
  return { deleted: await rotateSalts(services.registry, services.clock.now()) };
}

/** Local runtime: the same job on a timer, at start and then every hour (cheap: one query). */
export function scheduleSaltRotation(registry: Registry, now: () => Date): () => void {
  const run = () => void rotateSalts(registry, now()).catch((e: unknown) => log.error('salt rotation failed', { message: (e as Error).message }));
  run();
  const timer = setInterval(run, 60 * 60_000).unref();
  return () => clearInterval(timer);
}
