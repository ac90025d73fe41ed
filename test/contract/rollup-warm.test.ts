/**
 * The daily rollup warm-up (functions/workers/rollup-warm.ts, issue 43) on
 * DuckDB and ClickHouse (chDB), and the S3 store (none built: it has no rollups yet): a run builds the current sites' sealed days
 * of the last week that lack rollups (each store's own rule of which days are
 * sealed), none for an earlier registration's rows, and a second run builds
 * none. That reports read rollups exactly is the rollup properties' part.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSiteRecord } from '#domain/site.ts';
import { registrationOf } from '#domain/registration.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { createRollupWarmer, WARM_DAYS } from '#workers/rollup-warm.ts';
import { eventRow } from './event-store.contract.ts';
import { SITE_DATA_STORES, type AllSeries } from './site-data-stores.ts';
import { closeChdb } from '../support/chdb-executor.ts';

const NOW = new Date();
const TODAY = Math.floor(NOW.getTime() / DAY_MS);
const SITE = newSiteRecord('warm.example', 'web', 'owner-1', NOW);
const CURRENT: SiteRef = { site: SITE.hostname, registration: registrationOf(SITE) };
const EARLIER: SiteRef = { site: SITE.hostname, registration: 'earlier-registration' };
/** Days each store builds (reports/plan.ts): DuckDB keeps yesterday open, ClickHouse only today; the S3 store has no rollups yet. */
const SEALED_IN_WEEK: Record<string, number> = { DuckDB: WARM_DAYS - 1, 'ClickHouse (chDB)': WARM_DAYS, 'S3 (s3rver, dynalite)': 0 };

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

afterAll(() => closeChdb());

describe.each(SITE_DATA_STORES)('rollup warm-up on $name', ({ name, open }) => {
  let s: AllSeries;
  beforeAll(async () => {
    s = await open();
    const rows = (ref: SiteRef) => Array.from({ length: WARM_DAYS + 2 }, (_, d) => eventRow({ ...ref, ts: (TODAY - d) * DAY_MS + 3_600_000, path: `/p${d % 3}`, visitor: `v${d}`, id: `${ref.registration}-${d}` }));
    await s.events.saveEvents([...rows(CURRENT), ...rows(EARLIER)]);
  });
  afterAll(() => s.close());

  it("builds the current site's sealed days of the last week once, none of an earlier registration's", async () => {
    const warm = createRollupWarmer({ registry: { getSite: async (hostname) => (hostname === SITE.hostname ? SITE : null) }, siteData: s.data, reports: s.reports, clock: { now: () => NOW }, log: silent });
    expect(await warm()).toEqual({ sites: 1, days: SEALED_IN_WEEK[name], failed: 0 });
    expect(await warm()).toEqual({ sites: 1, days: 0, failed: 0 });
  });
});
