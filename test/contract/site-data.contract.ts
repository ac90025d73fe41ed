/**
 * A site's removal (ports/site-data.ts, issue 42), the same suite against
 * DuckDB and ClickHouse (chDB): a range of whole days goes from every series
 * (collected and imported events, API requests, Search Console rows, crawler
 * hits) with the rollups built from it; reports afterwards equal those of a
 * store that never held the removed rows (copies and appends across the
 * range's end included); other sites and registrations keep theirs; a second
 * call removes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { CrawlerHitRow } from '#ports/crawler-hits.ts';
import type { SearchRow } from '#ports/search-console.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { eventRow } from './event-store.contract.ts';
import { SITE_DATA_STORES, type AllSeries } from './site-data-stores.ts';
import { closeChdb } from '../support/chdb-executor.ts';

const H = 3_600_000;
const D = 24 * H;
/** 2026-03-10 00:00 UTC: the removed range is its day and the next, [T, T + 2D). */
export const T = Date.UTC(2026, 2, 10);
const SITE: SiteRef = { site: 'erased.example', registration: 'reg-1' };
const OTHER_REG: SiteRef = { ...SITE, registration: 'reg-0' };
const OTHER_SITE: SiteRef = { site: 'kept.example', registration: 'reg-1' };

const pv = (ref: SiteRef, ts: number, path: string, visitor: string, extra: Partial<EventRow> = {}) =>
  eventRow({ ...ref, ts, path, visitor, unique: true, id: `${ref.site}-${ref.registration}-${ts}`, ...extra });

/** Each row tagged with whether the removal takes it. */
export function seedRows(): { removed: boolean; row: EventRow }[] {
  return [
    { removed: false, row: pv(SITE, T - D + 2 * H, '/old', 'v1', { duration: 40, scrolled: 50 }) },
    { removed: true, row: pv(SITE, T + 3 * H, '/gone', 'v2') },
    { removed: true, row: eventRow({ ...SITE, ts: T + 4 * H, kind: 'event', event: 'signup', visitor: 'v2', id: 'e-gone' }) },
    { removed: true, row: pv(SITE, T + 5 * H, '/imported', 'v4', { imported: true, source_id: 'sa-1', id: 'imp-1' }) },
    // A page late on the last removed day, and its copy 6 hours later on the first kept day: a replay until its first goes.
    { removed: true, row: pv(SITE, T + D + 20 * H, '/edge', 'v3', { id: 'P1' }) },
    { removed: false, row: pv(SITE, T + 2 * D + 2 * H, '/edge', 'v3', { id: 'P1' }) },
    // A page on the last removed day and its append on the first kept day: the append has no page once it goes.
    { removed: true, row: pv(SITE, T + 2 * D - H, '/appended', 'v5', { id: 'P2' }) },
    { removed: false, row: eventRow({ ...SITE, ts: T + 2 * D + H, kind: 'append', original_id: 'P2', id: 'A2', duration: 30, scrolled: 80 }) },
    { removed: false, row: pv(SITE, T + 2 * D + 3 * H, '/kept', 'v6', { id: 'P3' }) },
    { removed: false, row: eventRow({ ...SITE, ts: T + 2 * D + 4 * H, kind: 'append', original_id: 'P3', id: 'A3', duration: 12, scrolled: 60 }) },
    { removed: false, row: eventRow({ ...SITE, ts: T + 2 * D + 5 * H, kind: 'event', event: 'signup', visitor: 'v6', id: 'e-kept' }) },
    // The same days of another registration of the hostname, and of another site.
    { removed: false, row: pv(OTHER_REG, T + 3 * H, '/gone', 'v7') },
    { removed: false, row: pv(OTHER_SITE, T + 3 * H, '/gone', 'v8') },
  ];
}

const apiRow = (ref: SiteRef, ts: number, id: string): ApiRequestRow => ({
  ...ref,
  ts,
  id,
  method: 'GET',
  route: '/users/{id}',
  status: 200,
  duration_ms: 12,
  bytes_in: null,
  bytes_out: 100,
  consumer: null,
});
const searchRow = (date: string, dim: SearchRow['dim'], name: string): SearchRow => ({ date, dim, name, clicks: 3, impressions: 30, position: 2 });
const hit = (ref: SiteRef, hour: number): CrawlerHitRow => ({ ...ref, hour, crawler: 'GPTBot', category: 'ai', path: '/', hits: 4 });

/** Seeds every series; with `keptOnly`, only what the removal leaves (the reference store). */
export async function seed(s: AllSeries, keptOnly: boolean): Promise<void> {
  await s.events.saveEvents(seedRows().filter((r) => !keptOnly || !r.removed).map((r) => r.row));
  const api = [apiRow(SITE, T + 2 * H, 'a1'), apiRow(SITE, T + D + 2 * H, 'a2'), apiRow(SITE, T + 2 * D + 2 * H, 'a3'), apiRow(OTHER_SITE, T + 2 * H, 'a4')];
  await s.apiRequests.saveApiRequests(keptOnly ? api.filter((r) => r.id === 'a3' || r.id === 'a4') : api);
  const search = [searchRow('2026-03-10', 'total', ''), searchRow('2026-03-10', 'queries', 'gone'), searchRow('2026-03-12', 'total', ''), searchRow('2026-03-12', 'queries', 'kept')];
  await s.searchStats.saveSearchRows(SITE, keptOnly ? search.filter((r) => r.date === '2026-03-12') : search);
  await s.searchStats.saveSearchRows(OTHER_SITE, [searchRow('2026-03-10', 'total', '')]);
  const hits = [hit(SITE, T + 5 * H), hit(SITE, T + 2 * D + 5 * H), hit(OTHER_SITE, T + 5 * H)];
  await s.crawlerHits.saveCrawlerHits(keptOnly ? hits.slice(1) : hits);
}

/** What the reports say of a site over the seeded days, every series. */
export async function reportsOf(s: AllSeries, ref: SiteRef) {
  const scope = { ...ref, from: T - 2 * D, to: T + 4 * D, filters: [] };
  const boundaries = Array.from({ length: 7 }, (_, i) => T - 2 * D + i * D);
  return {
    traffic: await s.reports.traffic({ sites: [ref], boundaries, filters: [] }),
    pages: await s.reports.breakdown(scope, 'pages', 10),
    events: await s.reports.breakdown(scope, 'events', 10),
    engagement: await s.reports.engagement(scope, [0, 10, 20], [50]),
    api: await s.apiRequests.apiTotals({ ...scope, filters: [] }),
    search: await s.searchStats.searchTotals({ ...ref, from: '2026-03-08', to: '2026-03-14' }),
    crawlers: await s.crawlerHits.crawlerRows(scope, 'crawlers', 10),
  };
}

afterAll(() => closeChdb());

for (const under of SITE_DATA_STORES) {
  describe(`a site's removal: ${under.name}`, () => {
    let store: AllSeries;
    let reference: AllSeries;

    beforeAll(async () => {
      [store, reference] = await Promise.all([under.open(), under.open()]);
      await seed(store, false);
      await seed(reference, true);
    });
    afterAll(async () => {
      await store.close();
      await reference.close();
    });

    it('removes the range from every series and answers the rows removed of each', async () => {
      // Read first, so the rollups of the removed days exist when the removal comes.
      const before = await reportsOf(store, SITE);
      expect(before.pages.map((r) => r.name)).toContain('/gone');
      expect(await store.data.removeSiteData(SITE, T, T + 2 * D)).toEqual({ events: 5, api_requests: 2, search_console: 2, crawler_hits: 1 });
    });

    it('leaves reports equal to those of a store that never held the removed rows', async () => {
      const after = await reportsOf(store, SITE);
      expect(after).toEqual(await reportsOf(reference, SITE));
      expect(after.pages.map((r) => r.name)).not.toContain('/gone');
      // The copy of a removed page counts now; the append of a removed page has none.
      expect(after.pages.find((r) => r.name === '/edge')?.value).toBe(1);
    });

    it("keeps the same days of the hostname's other registration and of other sites", async () => {
      for (const ref of [OTHER_REG, OTHER_SITE]) expect(await reportsOf(store, ref)).toEqual(await reportsOf(reference, ref));
      expect((await reportsOf(store, OTHER_SITE)).api.requests).toBe(1);
    });

    it('removes nothing on a second call', async () => {
      expect(await store.data.removeSiteData(SITE, T, T + 2 * D)).toEqual({ events: 0, api_requests: 0, search_console: 0, crawler_hits: 0 });
    });

    it('answers the oldest row left, over every series, and null for a site without rows', async () => {
      expect(await store.data.oldestRow(SITE)).toBe(T - D + 2 * H);
      expect(await store.data.oldestRow({ site: 'none.example', registration: 'reg-1' })).toBeNull();
    });

    it('lists every (hostname, registration) holding rows in any series', async () => {
      expect(await store.data.storedSites()).toEqual([OTHER_REG, SITE, OTHER_SITE].sort((a, b) => a.site.localeCompare(b.site) || a.registration.localeCompare(b.registration)));
    });

    it('refuses a range that is not whole UTC days', async () => {
      await expect(store.data.removeSiteData(SITE, T + H, T + 2 * D)).rejects.toThrow(RangeError);
      await expect(store.data.removeSiteData(SITE, T, T)).rejects.toThrow(RangeError);
    });
  });
}
