/**
 * The report queries' dialect entries, built without a store: what holds for
 * every statement whatever the store.
 */
import { daysToBuild, rollupVariant, sealedDays, variantOf } from '#reports/plan.ts';
import { dayRuns } from '#domain/rows/days.ts';
import { dayRanges, rowRanges } from '#reports/sql/sealed-days.ts';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bucketAt, dayLookup } from '#reports/sql/text.ts';
import type { DialectContexts, DialectName, Query } from '#reports/sql/dialect.ts';
import { listValue } from '@duckdb/node-api';
import { DuckDbSql } from '#reports/sql/dialects/duckdb.ts';
import { TimestreamSql } from '#reports/sql/dialects/timestream.ts';
import { ClickHouseSql, splitRanges } from '#reports/sql/dialects/clickhouse.ts';
import { breakdown, eventBreakdown } from '#reports/sql/breakdown.ts';
import { eventTotals } from '#reports/sql/event-totals.ts';
import { livePages } from '#reports/sql/live-pages.ts';
import { liveVisitors } from '#reports/sql/live-visitors.ts';
import { retention } from '#reports/sql/retention.ts';
import { techLists } from '#reports/sql/tech-lists.ts';
import { trafficCounts } from '#reports/sql/traffic.ts';
import { trafficEngagement } from '#reports/sql/traffic-engagement.ts';
import type { FilterClause } from '#domain/reports/filter.ts';

const T0 = Date.UTC(2024, 4, 1);
const H = 3_600_000;
const A = { site: 'a.example', registration: 'reg-a' };
const filters: FilterClause[] = [{ dim: 'page', op: 'contains', value: '/a' }, { dim: 'country', op: 'neq', value: 'DE' }];
const scope = { ...A, from: T0, to: T0 + 24 * H, filters };
const traffic = { sites: [A], boundaries: [T0, T0 + H, T0 + 2 * H], filters };

const contexts: { [D in DialectName]: () => DialectContexts[D] } = {
  duckdb: () => new DuckDbSql(listValue),
  timestream: () => new TimestreamSql({ database: 'db', table: 'events', has: () => true }),
  clickhouse: () => new ClickHouseSql('"db"."events"'),
};

/** Every statement the report store runs, in one dialect, with and without filters. */
function statements(dialect: DialectName): string[] {
  const build = <A extends unknown[]>(query: Query<A>, ...args: A): string =>
    (query[dialect] as (sql: DialectContexts[typeof dialect], ...a: A) => string)(contexts[dialect](), ...args);
  return [filters, []].flatMap((f) => {
    const s = { ...scope, filters: f };
    const t = { ...traffic, filters: f };
    return [
      build(trafficCounts, t, t.boundaries),
      build(trafficCounts, t, [T0, T0 + 2 * H]),
      build(trafficEngagement, t),
      build(liveVisitors, [A], T0, f),
      build(breakdown, s, 'pages', 10),
      build(breakdown, s, 'entry_pages', 10),
      build(breakdown, s, 'screens', 10),
      build(techLists, s, ['devices', 'browsers', 'os'], 5),
      build(eventBreakdown, s, 10),
      build(eventTotals, s),
      build(livePages, { ...A, since: T0, filters: f }, 5),
      build(retention, s, [5, 10], [25]),
    ];
  });
}

describe('report dialects', () => {
  it('DuckDB statements read the stored keys and never hash a column themselves (the writer computes the keys)', () => {
    for (const sql of statements('duckdb')) expect(sql).not.toMatch(/hash\s*\(/i);
  });

  it('every dialect builds every statement', () => {
    for (const dialect of Object.keys(contexts) as DialectName[]) expect(statements(dialect).every((sql) => sql.trim().length > 0)).toBe(true);
  });
});

describe('ClickHouse rows less the listed copies', () => {
  it('splits ranges at the moment the list began', () => {
    expect(splitRanges([[0, 10], [20, 30], [40, 50]], 25)).toEqual({ before: [[0, 10], [20, 25]], after: [[25, 30], [40, 50]] });
    expect(splitRanges([[0, 10]], 10)).toEqual({ before: [[0, 10]], after: [] });
    expect(splitRanges([[10, 20]], 10)).toEqual({ before: [], after: [[10, 20]] });
  });

  it('reads the parts of a range before the list began through the copy window, and the rest less the list', () => {
    const site = [{ site: 's.example', registration: 'r' }];
    const listing = { copies: '"db"."listed_copies"', since: T0, appends: '"db"."listed_appends"', appendsSince: T0 };
    const read = (ranges: [number, number][]) => new ClickHouseSql('"db"."events"', listing).canonicalIn('pageview', site, ranges, ['visitor']);
    const both = read([[T0 - H, T0 + H]]);
    expect(both).toContain('lagInFrame');
    expect(both).toContain('"db"."listed_copies"');
    expect(both).toContain(`"ts" < ${T0})`);
    expect(both).toContain(`("ts" >= ${T0} AND "ts" < ${T0 + H})`);
    const since = read([[T0, T0 + H]]);
    expect(since).not.toContain('lagInFrame');
    expect(since).toContain('LIMIT 1 BY');
    expect(read([[T0 - 2 * H, T0 - H]])).not.toContain('listed_copies');
    expect(new ClickHouseSql('"db"."events"').canonicalIn('pageview', site, [[T0, T0 + H]], ['visitor'])).toContain('lagInFrame');
  });

  it('reads the rows of several kinds since the list began in one read of the events table, and those before through a copy window per kind', () => {
    const site = [{ site: 's.example', registration: 'r' }];
    const listing = { copies: '"db"."listed_copies"', since: T0, appends: '"db"."listed_appends"', appendsSince: T0 };
    const read = (ranges: [number, number][]) => new ClickHouseSql('"db"."events"', listing).canonicalOf(['pageview', 'event'], site, ranges, ['kind', 'visitor']);
    const reads = (sql: string) => sql.split('FROM "db"."events"').length - 1;
    const since = read([[T0, T0 + H]]);
    expect(reads(since)).toBe(1);
    expect(since).toContain('("site", "registration", "kind", "id", "ts") NOT IN');
    const before = read([[T0 - 2 * H, T0 - H]]);
    expect(before.split('lagInFrame').length - 1).toBe(2);
    expect(reads(before)).toBe(2);
  });
});

describe('dayRuns', () => {
  it('splits ascending days into runs of consecutive days, none longer than the cap', () => {
    expect(dayRuns([1, 2, 3, 5, 6, 9], 31)).toEqual([[1, 3], [5, 6], [9, 9]]);
    expect(dayRuns([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5, 5]]);
    expect(dayRuns([], 31)).toEqual([]);
  });
});

describe('sealed days', () => {
  const D = 86_400_000;
  const H = 3_600_000;
  it('names the whole days of a range, and with `partial` the days it cuts into, all before the open ones', () => {
    expect(sealedDays(2 * D + H, 6 * D + H, 10 * D, 2)).toEqual({ first: 3, last: 5 });
    expect(sealedDays(2 * D + H, 6 * D + H, 10 * D, 2, true)).toEqual({ first: 2, last: 6 });
    expect(sealedDays(2 * D + H, 6 * D + H, 7 * D + H, 2, true)).toEqual({ first: 2, last: 5 });
    expect(sealedDays(2 * D + H, 2 * D + 2 * H, 10 * D, 2)).toBeNull();
    expect(sealedDays(2 * D + H, 2 * D + 2 * H, 10 * D, 2, true)).toEqual({ first: 2, last: 2 });
  });

  it('reads from rows only the parts of the range no named day answers, a cut day within the range', () => {
    const scope = { from: 2 * D + H, to: 6 * D + H };
    expect(rowRanges(scope, { first: 2, last: 6, built: [2, 3, 4, 5, 6] })).toEqual([]);
    expect(rowRanges(scope, { first: 2, last: 6, built: [3, 4, 5] })).toEqual([[2 * D + H, 3 * D], [6 * D, 6 * D + H]]);
    expect(rowRanges(scope, { first: 3, last: 5, built: [3, 5] })).toEqual([[2 * D + H, 3 * D], [4 * D, 5 * D], [6 * D, 6 * D + H]]);
  });

  it('gives the parts of days inside a range, days that meet as one range', () => {
    const scope = { from: 2 * D + H, to: 6 * D + H };
    expect(dayRanges([1, 2, 3, 5, 6, 7], scope)).toEqual([[2 * D + H, 4 * D], [5 * D, 6 * D + H]]);
    expect(dayRanges([], scope)).toEqual([]);
  });

  it('builds the days a read lacks only when one of them is a whole day of its range', () => {
    const scope = { from: 2 * D + H, to: 6 * D + H };
    expect(daysToBuild([2, 6], scope)).toEqual([]);
    expect(daysToBuild([2, 4], scope)).toEqual([2, 4]);
  });

  it("names the rollups of a scope's filters: the site's own without any, one dim:value clause's as the filter parameter spells it, none for other filters", () => {
    expect(rollupVariant([])).toBe('');
    expect(rollupVariant([{ dim: 'country', op: 'eq', value: 'DE' }])).toBe('country:DE');
    expect(rollupVariant([{ dim: 'page', op: 'eq', value: '/a;b' }])).toBe('page:%2Fa%3Bb');
    expect(rollupVariant([{ dim: 'referrer', op: 'eq', value: '' }])).toBe('referrer:');
    expect(rollupVariant([{ dim: 'country', op: 'neq', value: 'DE' }])).toBeNull();
    expect(rollupVariant([{ dim: 'page', op: 'contains', value: '/a' }])).toBeNull();
    expect(rollupVariant([{ dim: 'country', op: 'eq', value: 'DE' }, { dim: 'browser', op: 'eq', value: 'Chrome' }])).toBeNull();
    expect(() => variantOf([{ dim: 'country', op: 'neq', value: 'DE' }])).toThrow();
  });

  it('names no rollups for an event clause (it keeps visitors), and its own for a bare language subtag', () => {
    expect(rollupVariant([{ dim: 'event', op: 'eq', value: 'signup' }])).toBeNull();
    expect(rollupVariant([{ dim: 'language', op: 'eq', value: 'en-GB' }])).toBe('language:en-GB');
    expect(rollupVariant([{ dim: 'language', op: 'eq', value: 'en' }])).toBe('language:en;primary');
  });
});

describe('bucket of a row by a day look-up', () => {
  const D = 86_400_000;
  const bucketByLookup = (bounds: readonly number[], ts: number) => {
    const { first, starts, steps } = dayLookup(bounds);
    const i = Math.floor(ts / D) - first;
    return (starts[i] as number) + steps.filter((edge) => ts >= (edge[i] as number)).length;
  };

  it('gives every row inside the boundaries the bucket the comparison search gives', () => {
    // Boundaries anywhere (UTC midnights, hours, odd offsets), ranges from minutes to a year.
    const bounds = fc
      .uniqueArray(fc.integer({ min: 0, max: 400 * D }), { minLength: 2, maxLength: 60 })
      .map((edges) => edges.sort((a, b) => a - b));
    const aligned = fc
      .tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 60 }), fc.constantFrom(H, D, 7 * D), fc.integer({ min: -12, max: 14 }))
      .map(([day, n, step, offset]) => Array.from({ length: n + 1 }, (_, k) => day * D + offset * H + k * step + 14 * H));
    fc.assert(
      fc.property(fc.oneof(bounds, aligned), fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), (edges, at) => {
        const from = edges[0] as number;
        const ts = from + Math.floor(at * ((edges[edges.length - 1] as number) - from));
        expect(bucketByLookup(edges, ts)).toBe(bucketAt(edges, ts));
      }),
    );
  });

  it('takes one step per boundary a day holds, none when a boundary is a UTC midnight', () => {
    expect(dayLookup([D, 2 * D, 3 * D]).steps).toEqual([]);
    expect(dayLookup([D - H, 2 * D - H, 3 * D - H]).steps).toEqual([[D, 2 * D - H, 3 * D]]);
    expect(dayLookup([D, D + H, D + 2 * H, D + 3 * H]).steps).toEqual([[D + H], [D + 2 * H]]);
  });
});
