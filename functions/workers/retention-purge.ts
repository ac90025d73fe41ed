/**
 * The daily retention purge (issue 42): for every (hostname, registration)
 * holding rows in the event store, removes the rows older than its
 * retention from every series (ports/site-data.ts). The hostname's current
 * registration keeps its site's `retention_months`; rows of any other
 * registration (a deleted site, an earlier owner's) keep the default, 25
 * months, so nothing stored outlives the limit. The run is kept on the
 * current site (time, rows removed, the oldest row left) for GET …/setup.
 * Sites are listed from the stored rows, not the registry: a site without
 * rows has nothing to purge, and the registry is never scanned (lib/table-access.ts).
 * Idempotent: a second run on the same day removes nothing. One line is
 * logged per registration that lost rows (its hostname and counts; no
 * registration key, nothing else). A failing one is logged and the others go
 * on. Run at 00:00 UTC by the local timers, by an EventBridge rule on AWS.
 */
import { DEFAULT_RETENTION_MONTHS, retentionCutoff, retentionOf, type PurgeRun } from '#domain/data-retention/retention.ts';
import { registrationOf } from '#domain/registration.ts';
import type { Clock } from '#ports/clock.ts';
import type { InfoLogger } from '#ports/logger.ts';
import type { Registry } from '#ports/registry.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { ScheduledJob } from '#ports/scheduler.ts';
import type { SiteDataStore } from '#ports/site-data.ts';

export interface PurgeServices {
  registry: Pick<Registry, 'getSite' | 'recordPurge'>;
  siteData: SiteDataStore;
  clock: Clock;
  log: InfoLogger;
  /** RETENTION_MAX_MONTHS: no site keeps more, whatever its setting says. */
  retentionMaxMonths: number;
}

/** Purges one registration's rows as of `now`; its run. */
export async function purgeSite(s: PurgeServices, ref: SiteRef, now: Date): Promise<PurgeRun> {
  const site = await s.registry.getSite(ref.site);
  const current = site !== null && registrationOf(site) === ref.registration ? site : null;
  const months = current ? retentionOf(current, s.retentionMaxMonths) : Math.min(DEFAULT_RETENTION_MONTHS, s.retentionMaxMonths);
  const cutoff = retentionCutoff(now, months);
  const removed = await s.siteData.removeSiteData(ref, 0, cutoff);
  const rows = Object.values(removed).reduce((a, b) => a + b, 0);
  const cutoffText = new Date(cutoff).toISOString();
  if (rows > 0) s.log.info('retention purge removed rows', { hostname: ref.site, registered: current !== null, retention_months: months, cutoff: cutoffText, ...removed });
  const oldest = await s.siteData.oldestRow(ref);
  const run: PurgeRun = { at: now.toISOString(), retention_months: months, cutoff: cutoffText, rows_removed: rows, oldest_row_kept: oldest === null ? null : new Date(oldest).toISOString() };
  if (current) await s.registry.recordPurge(current.hostname, current.owner_uid, run);
  return run;
}

/** The purge of every stored registration; resolves with how many were purged, the rows removed and the failures. */
export function createRetentionPurge(s: PurgeServices): (now?: Date) => Promise<{ sites: number; rows: number; failed: number }> {
  return async (now = s.clock.now()) => {
    const refs = await s.siteData.storedSites();
    let rows = 0;
    let failed = 0;
    for (const ref of refs) {
      try {
        rows += (await purgeSite(s, ref, now)).rows_removed;
      } catch (e) {
        failed += 1;
        s.log.error('retention purge failed for a site', { hostname: ref.site, message: (e as Error).message });
      }
    }
    return { sites: refs.length, rows, failed };
  };
}

/** Daily at 00:00 UTC (a node down at midnight purges at the next one; not at start, so a restart never races a test's or an import's old rows). */
export const retentionPurgeJob = (s: PurgeServices): ScheduledJob => ({ name: 'retention-purge', everyMinutes: 24 * 60, run: createRetentionPurge(s) });
