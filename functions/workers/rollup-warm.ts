/**
 * The daily rollup warm-up (issue 43: no first-reader penalty): at 00:00 UTC,
 * for every site holding rows under its current registration, builds the
 * site's own daily rollups of the days sealed since the last run, so the
 * first report over them reads sums rather than building them. Which days
 * are sealed is each store's rule (reports/plan.ts: DuckDB seals a day two
 * days after it ends, ClickHouse its labels one day after); the run asks for
 * the last WARM_DAYS days and the store builds only those that lack a usable
 * rollup, so a node down at midnight catches up at the next one. Rows of
 * other registrations (a deleted site, an earlier owner's) are not read by
 * any report and get none. A failing site is logged and the others go on.
 * Run by the local timers, by an EventBridge rule on AWS (ClickHouse).
 */
import { DAY_MS } from '#domain/rows/days.ts';
import { registrationOf } from '#domain/registration.ts';
import type { Clock } from '#ports/clock.ts';
import type { InfoLogger } from '#ports/logger.ts';
import type { Registry } from '#ports/registry.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { ScheduledJob } from '#ports/scheduler.ts';
import type { SiteDataStore } from '#ports/site-data.ts';

/** How far back a run looks for sealed days without rollups. */
export const WARM_DAYS = 7;

export interface WarmServices {
  registry: Pick<Registry, 'getSite'>;
  siteData: Pick<SiteDataStore, 'storedSites'>;
  reports: Pick<ReportStore, 'warmRollups'>;
  clock: Clock;
  log: InfoLogger;
}

/** The warm-up of every current site; resolves with how many sites it looked at, the days built and the failures. */
export function createRollupWarmer(s: WarmServices): (now?: Date) => Promise<{ sites: number; days: number; failed: number }> {
  return async (now = s.clock.now()) => {
    const to = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    let [sites, days, failed] = [0, 0, 0];
    for (const ref of await s.siteData.storedSites()) {
      const site = await s.registry.getSite(ref.site);
      if (site === null || registrationOf(site) !== ref.registration) continue;
      sites += 1;
      try {
        days += await s.reports.warmRollups(ref, to - WARM_DAYS * DAY_MS, to);
      } catch (e) {
        failed += 1;
        s.log.error('rollup warm-up failed for a site', { hostname: ref.site, message: (e as Error).message });
      }
    }
    if (days > 0) s.log.info('rollups built for the days sealed', { sites, days });
    return { sites, days, failed };
  };
}

/** Daily at 00:00 UTC (not at start: a restart never races a test's or an import's writes). */
export const rollupWarmJob = (s: WarmServices): ScheduledJob => ({ name: 'rollup-warm', everyMinutes: 24 * 60, run: createRollupWarmer(s) });
