/**
 * The daily retention purge (issue 42): for every registered site, removes
 * the rows older than its retention from every series of the event store
 * (ports/site-data.ts), then keeps the run on the site (time, rows removed,
 * the oldest row left) for GET …/setup. Idempotent: a second run on the
 * same day finds nothing to remove. One line is logged per site that lost
 * rows (its hostname and counts; nothing else). A failing site is logged
 * and the others go on. Run at 00:00 UTC by the local timers, by an EventBridge
 * rule on AWS.
 */
import { retentionCutoff, retentionOf, type PurgeRun } from '#domain/data-retention/retention.ts';
import { registrationOf } from '#domain/registration.ts';
import type { Clock } from '#ports/clock.ts';
import type { InfoLogger } from '#ports/logger.ts';
import type { Registry } from '#ports/registry.ts';
import type { ScheduledJob } from '#ports/scheduler.ts';
import type { SiteDataStore } from '#ports/site-data.ts';
import type { SiteRecord } from '#ports/registry.ts';

export interface PurgeServices {
  registry: Pick<Registry, 'listAllSites' | 'recordPurge'>;
  siteData: SiteDataStore;
  clock: Clock;
  log: InfoLogger;
  /** RETENTION_MAX_MONTHS: no site keeps more, whatever its setting says. */
  retentionMaxMonths: number;
}

/** Purges one site as of `now`; its recorded run. */
export async function purgeSite(s: PurgeServices, site: SiteRecord, now: Date): Promise<PurgeRun> {
  const months = retentionOf(site, s.retentionMaxMonths);
  const cutoff = retentionCutoff(now, months);
  const ref = { site: site.hostname, registration: registrationOf(site) };
  const removed = await s.siteData.removeSiteData(ref, 0, cutoff);
  const rows = Object.values(removed).reduce((a, b) => a + b, 0);
  if (rows > 0) s.log.info('retention purge removed rows', { hostname: site.hostname, retention_months: months, cutoff: new Date(cutoff).toISOString(), ...removed });
  const oldest = await s.siteData.oldestRow(ref);
  const run: PurgeRun = {
    at: now.toISOString(),
    retention_months: months,
    cutoff: new Date(cutoff).toISOString(),
    rows_removed: rows,
    oldest_row_kept: oldest === null ? null : new Date(oldest).toISOString(),
  };
  await s.registry.recordPurge(site.hostname, site.owner_uid, run);
  return run;
}

/** The purge of every site; resolves with the sites purged and the rows removed. */
export function createRetentionPurge(s: PurgeServices): (now?: Date) => Promise<{ sites: number; rows: number; failed: number }> {
  return async (now = s.clock.now()) => {
    const sites = await s.registry.listAllSites();
    let rows = 0;
    let failed = 0;
    for (const site of sites) {
      try {
        rows += (await purgeSite(s, site, now)).rows_removed;
      } catch (e) {
        failed += 1;
        s.log.error('retention purge failed for a site', { hostname: site.hostname, message: (e as Error).message });
      }
    }
    return { sites: sites.length, rows, failed };
  };
}

/** Daily at 00:00 UTC (a node down at midnight purges at the next one; not at start, so a restart never races a test's or an import's old rows). */
export const retentionPurgeJob = (s: PurgeServices): ScheduledJob => ({ name: 'retention-purge', everyMinutes: 24 * 60, run: createRetentionPurge(s) });
