/**
 * Engagement is worked out differently per store: DuckDB from the parent flags its writer
 * sets, ClickHouse at read time in one pass over pages and appends (and into its page
 * rollups the same way), Timestream by a join. On random pages and appends (copies, bots,
 * appends before and long after their page, engagement on pages and on appends), every store
 * answers the traffic's engagement per bucket and retention as DuckDB reading rows does,
 * unfiltered and filtered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import { planOverview, RETENTION_DURATIONS, RETENTION_SCROLLS } from '#domain/reports/overview.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import type { ReportStore, TrafficRow } from '#ports/report-store.ts';
import { closeChdb } from '../support/chdb-executor.ts';
import { REGISTRATION } from './report-store.contract.ts';
import { REPORT_STORES, titleOf, type ReportAdapter } from './report-stores.ts';
import { arbRange, arbRollupSpec, rowsOfSpec, TIME_ZONES } from './rollup-rows.ts';
import { randomUUID } from 'node:crypto';
import { log } from '#platform/log.ts';

const FILTERS: FilterClause[][] = [[], [{ dim: 'country', op: 'eq', value: 'DE' }]];

/** Traffic rows in one order, whatever order a store returns them in. */
const ordered = (rows: TrafficRow[]) => [...rows].sort((a, b) => (a.bucket ?? -1) - (b.bucket ?? -1));

let reference: DuckDbEventStore;
let referenceReports: ReportStore;

beforeAll(async () => {
  reference = await DuckDbEventStore.open(':memory:', { log });
  referenceReports = new DuckDbReportStore({ query: (sql, params) => reference.query(sql, params) });
});
afterAll(async () => {
  await reference.close();
  closeChdb();
});

for (const store of REPORT_STORES.filter((s) => s.name !== 'DuckDB (rows only)')) {
  const skip = store.skip ?? store.skipProperties;
  describe.skipIf(skip !== null)(titleOf('engagement across stores', store, skip), () => {
    let adapter: ReportAdapter;
    beforeAll(async () => {
      adapter = await store.open();
    });
    afterAll(() => adapter?.close());

    it("answers each bucket's median duration and mean scroll, and retention, as DuckDB does from rows", async () => {
      await fc.assert(
        fc.asyncProperty(arbRollupSpec, arbRange, fc.constantFrom(...TIME_ZONES), fc.constantFrom(...FILTERS), async (spec, range, tz, filters) => {
          const site = `engaged-${randomUUID().slice(0, 8)}.example`;
          const made = rowsOfSpec(site, spec);
          for (let batch = 0; batch <= 2; batch++) {
            const rows = made.filter((m) => m.batch === batch).map((m) => m.row);
            await Promise.all([reference.saveEvents(rows), adapter.events.saveEvents(rows)]);
          }
          const scope = { site, registration: REGISTRATION, ...range, filters };
          expect(await adapter.reports.engagement(scope, RETENTION_DURATIONS, RETENTION_SCROLLS)).toEqual(
            await referenceReports.engagement(scope, RETENTION_DURATIONS, RETENTION_SCROLLS),
          );
          const { boundaries } = planOverview({ from: Math.ceil(range.from / 1000), to: Math.floor(range.to / 1000) }, tz);
          const traffic = { sites: [{ site, registration: REGISTRATION }], boundaries, filters };
          expect(ordered(await adapter.reports.traffic(traffic))).toEqual(ordered(await referenceReports.traffic(traffic)));
        }),
        // A store's share of the cases (report-stores.ts propertyShare): the same seed's first ones.
        { numRuns: Math.ceil(30 * (store.propertyShare ?? 1)), seed: 2727 },
      );
    }, 240_000);
  });
}
