/**
 * Properties over random datasets, against every report store
 * (report-stores.ts): the series sums to the totals, and the breakdowns that
 * keep empty labels (pages, referrers) sum to the totals under the same
 * filter; the unfiltered overview (the DuckDB store counts it from the
 * writer's flags) equals the one a filter that keeps every row forces,
 * whatever the arrival order; and the totals count exactly the rows the copy
 * rule (domain/rows/copies.ts) keeps.
 *
 * Each run seeds a site and reads several reports, so a property takes
 * minutes on a busy 2-core machine: the engines' suites run in files of their
 * own (report-properties-*.test.ts), side by side in the test workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { copyFlags } from '#domain/rows/copies.ts';
import { getBreakdown, getOverview, getOverviewSummary } from '#reports/reports.ts';
import { REGISTRATION, row } from './report-store.contract.ts';
import { titleOf, type ReportAdapter, type StoreUnderTest } from './report-stores.ts';

const T0 = Date.UTC(2024, 2, 25) / 1000;
const SPAN = 10 * 86400;

const arbRow = fc.record({
  offset: fc.integer({ min: -86400, max: SPAN + 86400 }),
  kind: fc.constantFrom('pageview', 'pageview', 'pageview', 'event', 'append'),
  visitor: fc.option(fc.constantFrom('v1', 'v2', 'v3', 'v4', 'v5'), { nil: null }),
  unique: fc.option(fc.boolean(), { nil: null }),
  path: fc.constantFrom('/', '/a', '/b', '/pricing'),
  referrer_host: fc.option(fc.constantFrom('google.com', 'news.example'), { nil: null }),
  country: fc.option(fc.constantFrom('DE', 'FR', 'US'), { nil: null }),
  bot: fc.boolean(),
  duplicateId: fc.boolean(),
});

const arbFilter: fc.Arbitrary<FilterClause[]> = fc.array(
  fc.record({
    dim: fc.constantFrom('page' as const, 'country' as const, 'referrer' as const),
    op: fc.constantFrom('eq' as const, 'neq' as const, 'contains' as const),
    value: fc.constantFrom('', '/a', 'DE', 'google.com', 'e'),
  }),
  { maxLength: 2 },
);

const arbRange = fc
  .record({ from: fc.integer({ min: 0, max: SPAN }), length: fc.integer({ min: 600, max: SPAN }) })
  .map(({ from, length }) => ({ from: T0 + from, to: T0 + from + length }));

/** How long one property may take: the ClickHouse-with-rollups runs went past 120 s on a busy CI machine. */
const PROPERTY_TIMEOUT_MS = 300_000;

export function describeReportProperties(stores: readonly StoreUnderTest[]): void {
  for (const store of stores) {
    const skip = store.skip ?? store.skipProperties;
    const runs = (n: number) => Math.ceil(n * (store.propertyShare ?? 1));
    describe.skipIf(skip !== null)(titleOf('report properties', store, skip), () => {
      let adapter: ReportAdapter;
      let events: EventStore;
      let reports: ReportStore;
      beforeAll(async () => {
        adapter = await store.open();
        ({ events, reports } = adapter);
      });
      afterAll(() => adapter.close());

      it('series and pages/referrers breakdowns sum to the totals', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(arbRow, { minLength: 0, maxLength: 40 }), arbFilter, arbRange, fc.constantFrom('UTC', 'Europe/Amsterdam', 'Asia/Kolkata'), async (spec, filters, range, tz) => {
            const site = `prop-${randomUUID().slice(0, 8)}.example`;
            let lastId = randomUUID();
            const rows = spec.map((r) => {
              const id = r.duplicateId ? lastId : randomUUID();
              lastId = id;
              return row(site, T0 + r.offset, {
                id, kind: r.kind as 'pageview', visitor: r.visitor, unique: r.unique, path: r.path, referrer_host: r.referrer_host, country: r.country, bot: r.bot,
                event: r.kind === 'event' ? 'e' : null, original_id: r.kind === 'append' ? lastId : null, duration: r.kind === 'append' ? 7 : null,
              });
            });
            await events.saveEvents(rows);
            const q = { site, registration: REGISTRATION, range, tz, filters, now: T0 + SPAN * 3 };
            const o = await getOverview(reports, q);
            expect(o.series.reduce((n, b) => n + b.pageviews, 0)).toBe(o.totals.pageviews);
            for (const dim of ['pages', 'referrers'] as const) {
              const b = await getBreakdown(reports, q, dim, 1000);
              expect(b.rows.reduce((n, r) => n + r.value, 0)).toBe(o.totals.pageviews);
            }
            const countries = await getBreakdown(reports, q, 'countries', 1000);
            expect(countries.rows.reduce((n, r) => n + r.value, 0)).toBeLessThanOrEqual(o.totals.pageviews);
          }),
          { numRuns: runs(60), seed: 4242 },
        );
      }, PROPERTY_TIMEOUT_MS);

      it('counts the same visitors and engagement from the writer flags as from distinct counts, whatever order the batches arrive in', async () => {
        const arbVisit = fc.record({
          offset: fc.integer({ min: 0, max: 2 * 86400 }),
          kind: fc.constantFrom('pageview', 'pageview', 'pageview', 'append', 'event'),
          visitor: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null, freq: 5 }),
          unique: fc.boolean(),
          bot: fc.boolean(),
          duplicateId: fc.boolean(),
          batch: fc.integer({ min: 0, max: 3 }),
        });
        const arbNear = fc
          .record({ from: fc.integer({ min: -43200, max: 86400 }), length: fc.oneof(fc.integer({ min: 3600, max: 12 * 3600 }), fc.integer({ min: 86400, max: 3 * 86400 })) })
          .map(({ from, length }) => ({ from: T0 + from, to: T0 + from + length }));
        await fc.assert(
          fc.asyncProperty(fc.array(arbVisit, { minLength: 20, maxLength: 80 }), arbNear, fc.constantFrom('UTC', 'Europe/Amsterdam', 'Asia/Kolkata', 'America/New_York'), async (spec, range, tz) => {
            const site = `flags-${randomUUID().slice(0, 8)}.example`;
            let lastPage = randomUUID();
            let lastId = randomUUID();
            const rows = spec.map((r) => {
              const ts = T0 + r.offset;
              const id = r.duplicateId ? lastId : randomUUID();
              lastId = id;
              if (r.kind === 'pageview') lastPage = id;
              // Visitor hashes cover one UTC day, as the collector makes them.
              const visitor = r.visitor === null ? null : `v${r.visitor}-${Math.floor(ts / 86400)}`;
              return {
                batch: r.batch,
                row: row(site, ts, {
                  id, kind: r.kind as 'pageview', visitor, unique: r.unique, bot: r.bot, event: r.kind === 'event' ? 'e' : null,
                  original_id: r.kind === 'append' ? lastPage : null, duration: r.kind === 'append' ? 3 + (r.offset % 20) : null,
                  scrolled: r.kind === 'append' ? r.offset % 101 : null,
                }),
              };
            });
            for (let b = 3; b >= 0; b--) await events.saveEvents(rows.filter((r) => r.batch === b).map((r) => r.row));
            const q = { site, registration: REGISTRATION, range, tz, filters: [], now: T0 + 30 * 86400 };
            // `contains ''` keeps every row but takes the filtered (distinct-count) path.
            const everything: FilterClause[] = [{ dim: 'page', op: 'contains', value: '' }];
            const [plain, filtered] = await Promise.all([getOverview(reports, q), getOverview(reports, { ...q, filters: everything })]);
            expect(plain).toEqual(filtered);
          }),
          { numRuns: runs(80), seed: 7 },
        );
      }, PROPERTY_TIMEOUT_MS);

      it('counts exactly the pageviews and events the copy rule keeps, ids repeated at any distance, rows stored in time order', async () => {
        const arbCopy = fc.record({
          offset: fc.integer({ min: -2 * 86400, max: 5 * 86400 }),
          kind: fc.constantFrom('pageview', 'pageview', 'event'),
          id: fc.integer({ min: 1, max: 6 }),
          bot: fc.boolean(),
        });
        const arbSpan = fc
          .record({ from: fc.integer({ min: 0, max: 3 * 86400 }), length: fc.integer({ min: 3600, max: 3 * 86400 }) })
          .map(({ from, length }) => ({ from: T0 + from, to: T0 + from + length }));
        await fc.assert(
          fc.asyncProperty(fc.array(arbCopy, { minLength: 1, maxLength: 25 }), arbSpan, async (spec, range) => {
            const site = `copies-${randomUUID().slice(0, 8)}.example`;
            const rows: EventRow[] = spec.map((r) =>
              row(site, T0 + r.offset, { id: `i${r.id}`, kind: r.kind as 'pageview', bot: r.bot, event: r.kind === 'event' ? 'e' : null }),
            );
            const sorted = [...rows].sort((a, b) => a.ts - b.ts);
            for (const r of sorted) await events.saveEvents([r]);
            const copy = copyFlags(sorted);
            const counted = (kind: string) =>
              sorted.filter((r, i) => r.kind === kind && !r.bot && !copy[i] && r.ts >= range.from * 1000 && r.ts < range.to * 1000).length;
            const q = { site, registration: REGISTRATION, range, tz: 'UTC', filters: [], now: T0 + 30 * 86400 };
            expect((await getOverview(reports, q)).totals.pageviews).toBe(counted('pageview'));
            expect((await getOverviewSummary(reports, q, 5)).events.totals.count).toBe(counted('event'));
          }),
          { numRuns: runs(40), seed: 11 },
        );
      }, PROPERTY_TIMEOUT_MS);
    });
  }
}
