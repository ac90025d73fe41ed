/**
 * The one decision of which days of a report's read the daily rollups answer
 * and which the rows (reports/plan.ts), under each store's rules: DuckDB
 * reads rows under filters no variant answers and names only whole days but
 * for stored pages; ClickHouse names the site's own builds then, and every
 * sealed day a range cuts into.
 */
import { describe, expect, it } from 'vitest';
import type { FilterClause } from '#domain/reports/filter.ts';
import { daysToBuildFor, lackingDays, planRollups, rolledDays, type RollupPolicy, type RollupRead } from '#reports/plan.ts';
import { DUCKDB_ROLLUPS } from '#adapters/duckdb/duckdb-report-store.ts';
import { CLICKHOUSE_ROLLUPS } from '#adapters/clickhouse/clickhouse-report-store.ts';

const D = 86_400_000;
const H = 3_600_000;
const A = { site: 'a.example', registration: 'reg-a' };
const B = { site: 'b.example', registration: 'reg-b' };
const NOW = 20 * D + 5 * H;
const DE: FilterClause[] = [{ dim: 'country', op: 'eq', value: 'DE' }];
const NOT_DE: FilterClause[] = [{ dim: 'country', op: 'neq', value: 'DE' }];
/** Days 10 (from 10:00) to 16 (until 12:00). */
const read = (filters: readonly FilterClause[] = [], sites = [A]): RollupRead => ({ sites, from: 10 * D + 10 * H, to: 16 * D + 12 * H, filters });

describe('planRollups', () => {
  it('leaves a read of several sites, or of none, to the rows', () => {
    for (const policy of [DUCKDB_ROLLUPS, CLICKHOUSE_ROLLUPS]) {
      expect(planRollups(read([], [A, B]), 'labels', policy, NOW)).toBeNull();
      expect(planRollups(read([], []), 'pages', policy, NOW)).toBeNull();
    }
  });

  it("DuckDB: names the whole sealed days for labels and slots of the filters' variant, and reads rows under other filters", () => {
    expect(planRollups(read(), 'labels', DUCKDB_ROLLUPS, NOW)).toEqual({ site: A, from: 10 * D + 10 * H, to: 16 * D + 12 * H, need: 'labels', filters: [], variant: '', first: 11, last: 15 });
    expect(planRollups(read(DE), 'slots', DUCKDB_ROLLUPS, NOW)).toMatchObject({ filters: DE, variant: 'country:DE', first: 11, last: 15 });
    expect(planRollups(read(NOT_DE), 'labels', DUCKDB_ROLLUPS, NOW)).toBeNull();
    expect(planRollups(read(NOT_DE), 'slots', DUCKDB_ROLLUPS, NOW)).toBeNull();
  });

  it("DuckDB: names the site's own pages under any filter, the days the range cuts into too, yesterday and today open", () => {
    expect(planRollups(read(NOT_DE), 'pages', DUCKDB_ROLLUPS, NOW)).toMatchObject({ filters: [], variant: '', first: 10, last: 16 });
    expect(planRollups(read(), 'pages', DUCKDB_ROLLUPS, 17 * D + H)).toMatchObject({ first: 10, last: 15 });
    expect(planRollups(read(), 'labels', DUCKDB_ROLLUPS, 12 * D + H)).toBeNull();
  });

  it("ClickHouse: names the site's own builds under filters no variant answers, every day the range cuts into, and keeps pages a day longer open", () => {
    expect(planRollups(read(NOT_DE), 'labels', CLICKHOUSE_ROLLUPS, NOW)).toMatchObject({ filters: [], variant: '', first: 10, last: 16 });
    expect(planRollups(read(DE), 'slots', CLICKHOUSE_ROLLUPS, NOW)).toMatchObject({ filters: DE, variant: 'country:DE', first: 10, last: 16 });
    expect(planRollups(read(DE), 'pages', CLICKHOUSE_ROLLUPS, NOW)).toMatchObject({ filters: [], variant: '' });
    expect(planRollups(read(), 'labels', CLICKHOUSE_ROLLUPS, 16 * D + H)).toMatchObject({ last: 15 });
    expect(planRollups(read(), 'pages', CLICKHOUSE_ROLLUPS, 16 * D + H)).toMatchObject({ last: 14 });
  });

  it('follows the rules a store states', () => {
    const everyDay: RollupPolicy = { openDays: { labels: 0, pages: 0 }, cutDays: () => false, otherFilters: 'rows' };
    expect(planRollups(read(), 'pages', everyDay, 16 * D)).toMatchObject({ first: 11, last: 15 });
  });
});

describe('the days a plan builds', () => {
  const plan = planRollups(read(), 'labels', CLICKHOUSE_ROLLUPS, NOW)!;

  it('lacks the days without a build', () => {
    expect(lackingDays(plan, [10, 12, 13, 14, 15])).toEqual([11, 16]);
  });

  it('builds the lacking days only when one of them is a whole day of the range', () => {
    expect(daysToBuildFor(plan, [11, 12, 13, 14, 15])).toEqual([]);
    expect(daysToBuildFor(plan, [10, 12, 13, 14, 16])).toEqual([11, 15]);
  });
});

describe('rolledDays', () => {
  const range = { from: 10 * D + 10 * H, to: 16 * D + 12 * H };
  const named = [10, 11, 12, 13, 16];

  it('lets stored pages answer every named day, those the range cuts into too', () => {
    expect(rolledDays('pages', named, { ...range, filters: NOT_DE }, '')).toEqual(named);
  });

  it("lets labels answer the whole days, only of the read's own variant", () => {
    expect(rolledDays('labels', named, { ...range, filters: [] }, '')).toEqual([11, 12, 13]);
    expect(rolledDays('labels', named, { ...range, filters: DE }, 'country:DE')).toEqual([11, 12, 13]);
    expect(rolledDays('labels', named, { ...range, filters: NOT_DE }, '')).toEqual([]);
    expect(rolledDays('labels', named, { ...range, filters: DE }, '')).toEqual([]);
  });

  it('lets slots answer the whole days whose slots can split the buckets: at most one boundary inside, on a quarter hour', () => {
    const bounds = [range.from, 11 * D, 12 * D + 7 * H, 12 * D + 8 * H, 13 * D + 90_000, 14 * D + 15 * 60_000, range.to];
    expect(rolledDays('slots', named, { ...range, filters: [], bounds }, '')).toEqual([11]);
    expect(rolledDays('slots', [11, 12, 13, 14], { ...range, filters: [], bounds }, '')).toEqual([11, 14]);
  });
});
