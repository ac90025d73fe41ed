/**
 * The daily retention purge (functions/workers/retention-purge.ts, issue 42)
 * with a controlled clock, on DuckDB and ClickHouse (chDB): rows one day past
 * a site's limit go from every series, rows one day inside stay, reports
 * (overview, breakdown) agree with a store that only ever held the kept rows,
 * an earlier registration's rows keep the default 25 months, the run is
 * recorded on the site, and a second run removes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSiteRecord } from '#domain/site.ts';
import { registrationOf } from '#domain/registration.ts';
import { retentionCutoff, type PurgeRun } from '#domain/data-retention/retention.ts';
import type { SiteRecord } from '#ports/registry.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { createRetentionPurge } from '#workers/retention-purge.ts';
import { eventRow } from './event-store.contract.ts';
import { SITE_DATA_STORES, type AllSeries } from './site-data-stores.ts';
import { closeChdb } from '../support/chdb-executor.ts';

const H = 3_600_000;
const D = 24 * H;
/** The controlled clock: 2026-05-31 00:30 UTC (31 May less 3 months clamps to 28 February). */
const NOW = new Date(Date.UTC(2026, 4, 31, 0, 30));
/** A 3-month site keeps from 1 March 2026, 00:00 UTC. */
const CUTOFF = Date.UTC(2026, 2, 1);

const site = (hostname: string, months: number | null): SiteRecord => ({ ...newSiteRecord(hostname, 'web', 'owner-1', NOW), retention_months: months });
const SHORT = site('short.example', 3);
/** The default, 25 months: nothing of the seeded rows is that old. */
const LONG = site('long.example', null);
const refOf = (s: SiteRecord): SiteRef => ({ site: s.hostname, registration: registrationOf(s) });
/** An earlier registration of SHORT's hostname (a deleted site): its rows keep the default 25 months, from 1 May 2024. */
const ORPHAN: SiteRef = { site: SHORT.hostname, registration: 'earlier-registration' };
const orphanRows = (keptOnly: boolean) => [
  ...(keptOnly ? [] : [eventRow({ ...ORPHAN, ts: Date.UTC(2024, 3, 30, 12), path: '/orphan-past', id: 'orphan-past' })]),
  eventRow({ ...ORPHAN, ts: Date.UTC(2024, 4, 1, 12), path: '/orphan-inside', id: 'orphan-inside' }),
];

/** Rows around the cutoff for a site: a day past it (removed for SHORT) and a day inside it (kept). */
function rowsOf(ref: SiteRef, keptOnly: boolean) {
  const past = [
    eventRow({ ...ref, ts: CUTOFF - D + 6 * H, path: '/past', visitor: 'v1', unique: true, id: `${ref.site}-past` }),
    eventRow({ ...ref, ts: CUTOFF - 12 * H, kind: 'event', event: 'old_signup', visitor: 'v1', id: `${ref.site}-past-event` }),
  ];
  const inside = [
    eventRow({ ...ref, ts: CUTOFF + 6 * H, path: '/inside', visitor: 'v2', unique: true, id: `${ref.site}-inside` }),
    eventRow({ ...ref, ts: CUTOFF + D + 6 * H, kind: 'event', event: 'signup', visitor: 'v2', id: `${ref.site}-inside-event` }),
  ];
  return keptOnly ? inside : [...past, ...inside];
}

async function seed(s: AllSeries, keptOnly: boolean): Promise<void> {
  await s.events.saveEvents([...rowsOf(refOf(SHORT), keptOnly), ...rowsOf(refOf(LONG), false), ...orphanRows(keptOnly)]);
  const api = (ts: number, id: string) => ({ ...refOf(SHORT), ts, id, method: 'GET', route: '/', status: 200, duration_ms: 5, bytes_in: null, bytes_out: 10, consumer: null });
  await s.apiRequests.saveApiRequests(keptOnly ? [api(CUTOFF + H, 'in')] : [api(CUTOFF - H, 'past'), api(CUTOFF + H, 'in')]);
  const hit = (hour: number) => ({ ...refOf(SHORT), hour, crawler: 'GPTBot', category: 'ai' as const, path: '/', hits: 2 });
  await s.crawlerHits.saveCrawlerHits(keptOnly ? [hit(CUTOFF + H)] : [hit(CUTOFF - H), hit(CUTOFF + H)]);
  const day = (date: string) => ({ date, dim: 'total' as const, name: '', clicks: 1, impressions: 10, position: 3 });
  await s.searchStats.saveSearchRows(refOf(SHORT), keptOnly ? [day('2026-03-01')] : [day('2026-02-28'), day('2026-03-01')]);
}

async function reportsOf(s: AllSeries, ref: SiteRef) {
  const scope = { ...ref, from: CUTOFF - 3 * D, to: CUTOFF + 3 * D, filters: [] };
  return {
    overview: await s.reports.traffic({ sites: [ref], boundaries: Array.from({ length: 7 }, (_, i) => CUTOFF - 3 * D + i * D), filters: [] }),
    pages: await s.reports.breakdown(scope, 'pages', 10),
    events: await s.reports.breakdown(scope, 'events', 10),
  };
}

/** A registry holding the two sites and the runs recorded on them. */
function registry() {
  const runs = new Map<string, PurgeRun>();
  return {
    runs,
    getSite: async (hostname: string) => [SHORT, LONG].find((x) => x.hostname === hostname) ?? null,
    recordPurge: async (hostname: string, _owner: string, run: PurgeRun) => (runs.set(hostname, run), true),
  };
}

const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
const log = { info: (msg: string, fields?: Record<string, unknown>) => lines.push({ msg, fields }), warn: () => {}, error: (msg: string) => lines.push({ msg }) };

afterAll(() => closeChdb());

it('cuts at the day after today less the months, the day clamped to the month', () => {
  expect(retentionCutoff(NOW, 3)).toBe(CUTOFF);
  expect(retentionCutoff(new Date('2026-11-29T12:00:00Z'), 25)).toBe(Date.UTC(2024, 9, 30));
});

for (const under of SITE_DATA_STORES) {
  describe(`the retention purge: ${under.name}`, () => {
    let store: AllSeries;
    let reference: AllSeries;
    const reg = registry();
    let purge: ReturnType<typeof createRetentionPurge>;

    beforeAll(async () => {
      [store, reference] = await Promise.all([under.open(), under.open()]);
      await seed(store, false);
      await seed(reference, true);
      purge = createRetentionPurge({ registry: reg, siteData: store.data, clock: { now: () => NOW }, log, retentionMaxMonths: 25 });
    });
    afterAll(async () => {
      await store.close();
      await reference.close();
    });

    it('removes the rows a day past the limit from every series and keeps those a day inside', async () => {
      await reportsOf(store, refOf(SHORT));
      lines.length = 0;
      expect(await purge()).toEqual({ sites: 3, rows: 6, failed: 0 });
      // The Search Console day 2026-03-01 is the oldest left: its day's start is the cutoff.
      expect(await store.data.oldestRow(refOf(SHORT))).toBe(CUTOFF);
      expect((await reportsOf(store, refOf(SHORT))).pages.map((r) => r.name)).toEqual(['/inside']);
    });

    it('leaves reports (overview, breakdowns) equal to those of a store that never held the purged rows', async () => {
      expect(await reportsOf(store, refOf(SHORT))).toEqual(await reportsOf(reference, refOf(SHORT)));
      expect((await reportsOf(store, refOf(LONG))).pages.map((r) => r.name).sort()).toEqual(['/inside', '/past']);
      const orphan = { ...ORPHAN, from: Date.UTC(2024, 3, 1), to: Date.UTC(2024, 5, 1), filters: [] };
      expect((await store.reports.breakdown(orphan, 'pages', 10)).map((r) => r.name)).toEqual(['/orphan-inside']);
    });

    it('records the run on each registered site and logs one line per registration that lost rows', () => {
      expect(reg.runs.get(SHORT.hostname)).toEqual({
        at: NOW.toISOString(),
        retention_months: 3,
        cutoff: new Date(CUTOFF).toISOString(),
        rows_removed: 5,
        oldest_row_kept: new Date(CUTOFF).toISOString(),
      });
      expect(reg.runs.get(LONG.hostname)).toMatchObject({ retention_months: 25, rows_removed: 0, oldest_row_kept: new Date(CUTOFF - D + 6 * H).toISOString() });
      expect(lines).toHaveLength(2);
      expect(lines).toEqual(expect.arrayContaining([
        {
          msg: 'retention purge removed rows',
          fields: { hostname: SHORT.hostname, registered: false, retention_months: 25, cutoff: new Date(Date.UTC(2024, 4, 1)).toISOString(), events: 1, api_requests: 0, search_console: 0, crawler_hits: 0 },
        },
        {
          msg: 'retention purge removed rows',
          fields: { hostname: SHORT.hostname, registered: true, retention_months: 3, cutoff: new Date(CUTOFF).toISOString(), events: 2, api_requests: 1, search_console: 1, crawler_hits: 1 },
        },
      ]));
    });

    it('removes nothing on a second run', async () => {
      expect(await purge()).toEqual({ sites: 3, rows: 0, failed: 0 });
      expect(reg.runs.get(SHORT.hostname)?.rows_removed).toBe(0);
    });
  });
}
