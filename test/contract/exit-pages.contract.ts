/**
 * The `exit_pages` breakdown on every maintained report store: per visit (a
 * visitor hash's canonical human pageviews of a UTC day in the range, after
 * the filters), the path of its last pageview by ts, ties by the greater id.
 * Rows without a visitor hash add nothing. Run by report-store.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { getBreakdown } from '#reports/reports.ts';
import { REGISTRATION, row } from './report-store.contract.ts';
import { titleOf, type ReportAdapter, type StoreUnderTest } from './report-stores.ts';

const T0 = Date.UTC(2024, 4, 1) / 1000;
const H = 3600;
const D = 86400;

const site = () => `exits-${randomUUID().slice(0, 8)}.example`;

export function exitPagesContract(store: StoreUnderTest): void {
  describe.skipIf(store.skip !== null || store.name.startsWith('Timestream'))(titleOf('exit pages', store, store.skip), () => {
    if (store.testTimeout && store.skip === null) vi.setConfig({ testTimeout: store.testTimeout });
    let a: ReportAdapter;
    let s: string;
    beforeAll(async () => {
      a = await store.open();
      s = site();
      const rows: EventRow[] = [
        // v1 ends on /b; a copy of its first pageview (same id, later) and a bot's later pageview are no pageviews of it.
        row(s, T0 + H, { id: 'v1-1', visitor: 'v1', unique: true, path: '/a', country: 'DE' }),
        row(s, T0 + 2 * H, { id: 'v1-2', visitor: 'v1', path: '/b', country: 'FR' }),
        row(s, T0 + 3 * H, { id: 'v1-1', visitor: 'v1', path: '/a', country: 'DE' }),
        row(s, T0 + 4 * H, { id: 'v1-bot', visitor: 'v1', path: '/bot', bot: true }),
        // v2 sees one page.
        row(s, T0 + H, { id: 'v2-1', visitor: 'v2', unique: true, path: '/a', country: 'DE' }),
        // v3's last two pageviews share a ts: the greater id is the later.
        row(s, T0 + H, { id: 'v3-1', visitor: 'v3', unique: true, path: '/a' }),
        row(s, T0 + 2 * H, { id: 'v3-b', visitor: 'v3', path: '/c' }),
        row(s, T0 + 2 * H, { id: 'v3-a', visitor: 'v3', path: '/b' }),
        // v4's hash on two days: two visits, each with its own exit.
        row(s, T0 + 5 * H, { id: 'v4-1', visitor: 'v4', unique: true, path: '/a' }),
        row(s, T0 + D + H, { id: 'v4-2', visitor: 'v4', unique: true, path: '/b' }),
        // Imported and older rows without a hash cannot say where a visit ended; events are no pageviews.
        row(s, T0 + 6 * H, { id: 'imp-1', visitor: null, unique: true, path: '/imported', imported: true, source_id: 'sa-1' }),
        row(s, T0 + 7 * H, { id: 'ev-1', kind: 'event', event: 'signup', visitor: 'v2', path: '/event' }),
      ];
      await a.events.saveEvents(rows);
    });
    afterAll(() => a.close());

    const exits = async (from: number, to: number, filters: FilterClause[] = [], limit = 10) =>
      (await getBreakdown(a.reports, { site: s, registration: REGISTRATION, range: { from, to }, filters }, 'exit_pages', limit)).rows.map((r) => [r.name, r.value, r.visitors]);

    it('counts each visit once at its last canonical human pageview, value desc then name', async () => {
      expect(await exits(T0, T0 + 2 * D)).toEqual([['/a', 2, 2], ['/b', 2, 2], ['/c', 1, 1]]);
    });

    it('reads the range: a visit cut by it ends at its last pageview inside', async () => {
      expect(await exits(T0, T0 + 90 * 60)).toEqual([['/a', 3, 3]]);
      expect(await exits(T0 + D, T0 + 2 * D)).toEqual([['/b', 1, 1]]);
    });

    it('applies the filters to the pageviews before finding each visit\'s last', async () => {
      expect(await exits(T0, T0 + 2 * D, [{ dim: 'country', op: 'eq', value: 'DE' }])).toEqual([['/a', 2, 2]]);
      expect(await exits(T0, T0 + 2 * D, [{ dim: 'page', op: 'neq', value: '/b' }])).toEqual([['/a', 3, 3], ['/c', 1, 1]]);
    });

    it('cuts at the limit', async () => {
      expect(await exits(T0, T0 + 2 * D, [], 1)).toEqual([['/a', 2, 2]]);
    });
  });
}
