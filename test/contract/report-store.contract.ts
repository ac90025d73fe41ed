/**
 * The report contract: one known dataset per case, hand-computed numbers,
 * asserted through the same builders the API uses. Every ReportStore adapter
 * runs it (report-stores.ts: DuckDB always; Timestream when AWS credentials
 * are present), so stores that answer differently fail here.
 */
// The web reports' suite: a store that keeps no API requests lists API sites with no api_days (the API series has its own suite).
import { TIMESTREAM_API_REQUESTS } from '#adapters/timestream/timestream-api-requests.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { zonedToUnix } from '#domain/reports/time.ts';
import { BREAKDOWN_DIMS } from '#domain/reports/query.ts';
import { getBreakdown, getOverview, getOverviewSummary, getRetention, getSitesSummary } from '#reports/reports.ts';

import { titleOf, type ReportAdapter, type StoreUnderTest } from './report-stores.ts';

const T0 = Date.UTC(2024, 4, 1) / 1000; // 2024-05-01T00:00Z
const H = 3600;
const D = 86400;

/** The registration the contract's reports read; rows carry it unless told otherwise. */
export const REGISTRATION = 'reg-current';

/** A canonical human pageview unless told otherwise. */
export function row(site: string, ts: number, over: Partial<EventRow> = {}): EventRow {
  return {
    site, registration: REGISTRATION, ts: ts * 1000, kind: 'pageview', id: randomUUID(), original_id: null, event: null, visitor: null, unique: null, page_id: null,
    session_id: null, path: '/', query: null, referrer: null, referrer_host: null, utm_source: null, utm_medium: null, utm_campaign: null,
    utm_term: null, utm_content: null, source: null, country: null, browser: null, os: null, device: null, language: null,
    viewport_width: null, viewport_height: null, screen_width: null, screen_height: null, duration: null, scrolled: null, bot: false,
    metadata: null, https: true, imported: false, source_id: null, ...over,
  };
}
const append = (site: string, ts: number, parent: string, over: Partial<EventRow> = {}) => row(site, ts, { kind: 'append', original_id: parent, ...over });
const event = (site: string, ts: number, name: string, over: Partial<EventRow> = {}) => row(site, ts, { kind: 'event', event: name, ...over });

const site = (name: string) => `${name}-${randomUUID().slice(0, 8)}.example`;
const q = (s: string, from: number, to: number, tz = 'UTC', filters: FilterClause[] = [], now = to + 10 * D, registration = REGISTRATION) => ({
  site: s,
  registration,
  range: { from, to },
  tz,
  filters,
  now,
});

export function reportContract(store: StoreUnderTest): void {
  describe.skipIf(store.skip !== null)(titleOf('report contract', store, store.skip), () => {
    if (store.testTimeout && store.skip === null) vi.setConfig({ testTimeout: store.testTimeout });
    let a: ReportAdapter;
    beforeAll(async () => {
      a = await store.open();
    });
    afterAll(() => a.close());
    const seed = (rows: EventRow[]) => a.events.saveEvents(rows);

    it('answers zeros, nulls and empty lists for an empty site', async () => {
      const s = site('empty');
      const o = await getOverview(a.reports, q(s, T0, T0 + D));
      expect(o.totals).toEqual({ pageviews: 0, visitors: 0, avg_duration_s: null, avg_scroll: null });
      expect(o.previous).toEqual(o.totals);
      expect(o.series).toHaveLength(24);
      expect(o.series.every((b) => b.pageviews === 0 && b.visitors === 0 && b.duration_s === null)).toBe(true);
      expect([o.live, o.forecast, o.granularity]).toEqual([0, null, 'hour']);
      expect((await getBreakdown(a.reports, q(s, T0, T0 + D), 'pages', 10)).rows).toEqual([]);
      expect(await getOverviewSummary(a.reports, q(s, T0, T0 + D), 5)).toEqual({
        events: { totals: { count: 0, visitors: 0 }, previous: { count: 0, visitors: 0 }, top: [] },
        tech: { devices: [], browsers: [], os: [] },
        live: { pages: [] },
      });
      expect((await getRetention(a.reports, q(s, T0, T0 + D))).pageviews_measured).toBe(0);
    });

    it('classes screens by width at each class bound, leaving unknown and non-positive widths out', async () => {
      const s = site('screens');
      const widths = [1, 375, 575, 576, 768, 991, 992, 1366, 1439, 1440, 1920, 100_000, null, 0, -1];
      await seed(widths.map((screen_width, i) => row(s, T0 + i * 60, { visitor: `v${i}`, screen_width })));
      const rows = (await getBreakdown(a.reports, q(s, T0, T0 + D), 'screens', 10)).rows.map((r) => [r.name, r.value]);
      expect(rows).toEqual([['Desktop', 3], ['Laptop', 3], ['Mobile', 3], ['Tablet', 3]]);
    });

    it('counts canonical human pageviews and daily visitors with exact boundaries', async () => {
      const s = site('counts');
      const p3 = randomUUID();
      await seed([
        row(s, T0, { visitor: 'v4' }), // exactly `from`: in
        row(s, T0 + 1 * H, { visitor: 'v1', path: '/a' }),
        row(s, T0 + 2 * H, { visitor: 'v1', path: '/b' }),
        row(s, T0 + 2 * H + 100, { id: p3, visitor: 'v2', path: '/a' }),
        row(s, T0 + 2 * H + 200, { id: p3, visitor: 'v2', path: '/a' }), // replay of p3 at another time: once
        row(s, T0 + 3 * H, { visitor: 'v3', bot: true }), // bot: out
        row(s, T0 + 4 * H, { unique: true, imported: true }), // no hash: counts by unique
        row(s, T0 + 4 * H, { unique: false, imported: true }),
        event(s, T0 + 5 * H, 'signup', { visitor: 'v1' }), // not a pageview
        row(s, T0 - 1, { visitor: 'v9' }), // before `from`
        row(s, T0 + D, { visitor: 'v9' }), // `to` is exclusive
      ]);
      const o = await getOverview(a.reports, q(s, T0, T0 + D));
      expect([o.totals.pageviews, o.totals.visitors]).toEqual([6, 4]);
      expect(o.series.reduce((n, b) => n + b.pageviews, 0)).toBe(6);
      expect(o.series.slice(0, 5).map((b) => [b.pageviews, b.visitors])).toEqual([[1, 1], [1, 1], [2, 2], [0, 0], [2, 1]]);
      expect(o.previous).toEqual({ pageviews: 1, visitors: 1, avg_duration_s: null, avg_scroll: null });
      expect(o.previous_range).toEqual({ from: T0 - D, to: T0 });
    });

    /** Rows stored one at a time in time order, as the collector's rows arrive (domain/rows/copies.ts). */
    const seedInOrder = async (rows: EventRow[]) => {
      for (const r of [...rows].sort((x, y) => x.ts - y.ts)) await seed([r]);
    };

    it('counts an id once, at its first row, until a day passes without it (domain/rows/copies.ts)', async () => {
      const s = site('copies');
      await seedInOrder([
        row(s, T0 - 2 * H, { id: 'p1', path: '/1' }),
        row(s, T0 + H, { id: 'p1', path: '/1' }), // a copy: its first row is before the range
        row(s, T0 + 2 * H, { id: 'p2', path: '/2' }),
        row(s, T0 + 3 * H, { id: 'p2', path: '/2' }), // a copy in the next bucket
        row(s, T0 + 4 * H, { id: 'p3', path: '/3' }),
        row(s, T0 + 29 * H, { id: 'p3', path: '/3' }), // 25 h later: counts again
        row(s, T0 + 10 * H, { id: 'p4', path: '/4' }),
        row(s, T0 + 30 * H, { id: 'p4', path: '/4' }), // 20 h after the row before: a copy,
        row(s, T0 + 50 * H, { id: 'p4', path: '/4' }), // and so is this one, 40 h after the first
        row(s, T0 + 5 * H, { id: 'p5', path: '/5', bot: true }),
        row(s, T0 + 6 * H, { id: 'p5', path: '/5' }), // a copy of a bot's row counts neither
        event(s, T0 + 5 * H, 'signup', { id: 'e1' }),
        event(s, T0 + 6 * H, 'signup', { id: 'e1' }),
        event(s, T0 + 5 * H, 'buy', { id: 'e2' }),
        event(s, T0 + 31 * H, 'buy', { id: 'e2' }),
        row(s, T0 + 7 * H, { id: 'e2', path: '/e2' }), // another kind with the same id: its own row
      ]);
      const day = await getOverview(a.reports, q(s, T0, T0 + D));
      expect(day.totals.pageviews).toBe(4);
      expect(day.series.slice(0, 8).map((b) => b.pageviews)).toEqual([0, 0, 1, 0, 1, 0, 0, 1]);
      expect(day.series[10]!.pageviews).toBe(1);
      const days = q(s, T0, T0 + 3 * D);
      expect((await getOverview(a.reports, days)).totals.pageviews).toBe(5);
      expect((await getBreakdown(a.reports, days, 'pages', 10)).rows.map((r) => [r.name, r.value])).toEqual([['/3', 2], ['/2', 1], ['/4', 1], ['/e2', 1]]);
      expect((await getBreakdown(a.reports, days, 'events', 10)).rows.map((r) => [r.name, r.value])).toEqual([['buy', 2], ['signup', 1]]);
      expect((await getOverviewSummary(a.reports, days, 5)).events.totals.count).toBe(3);
      // Whether a row counts is the row's own: the days add up to the range.
      const perDay = await Promise.all([0, 1, 2].map(async (d) => (await getOverview(a.reports, q(s, T0 + d * D, T0 + (d + 1) * D))).totals.pageviews));
      expect(perDay).toEqual([4, 1, 0]);
    });

    it('adds an append to the page of its id that came at most a day before it, each page of a repeated id its own', async () => {
      const s = site('append-copies');
      await seedInOrder([
        row(s, T0 + H, { id: 'p', visitor: 'v1' }),
        append(s, T0 + H + 10, 'p', { id: 'a1', duration: 10, scrolled: 40 }),
        append(s, T0 + H + 20, 'p', { id: 'a1', duration: 10, scrolled: 40 }), // a copy of a1
        append(s, T0 + 26 * H, 'p', { id: 'a2', duration: 99 }), // 25 h after its page: no page
        row(s, T0 + 31 * H, { id: 'p', visitor: 'v2' }), // 30 h later: p counts again
        append(s, T0 + 31 * H + 10, 'p', { id: 'a3', duration: 20, scrolled: 80 }),
      ]);
      const o = await getOverview(a.reports, q(s, T0, T0 + 3 * D));
      expect(o.totals).toEqual({ pageviews: 2, visitors: 2, avg_duration_s: 15, avg_scroll: 60 });
      expect(o.series.map((b) => b.duration_s)).toEqual([10, 20, null]);
      const r = await getRetention(a.reports, q(s, T0, T0 + 3 * D));
      expect(r.pageviews_measured).toBe(2);
      expect(r.duration.slice(0, 3)).toEqual([{ s: 5, share: 1 }, { s: 10, share: 1 }, { s: 30, share: 0 }]);
      const filtered = await getOverview(a.reports, q(s, T0, T0 + 3 * D, 'UTC', [{ dim: 'page', op: 'eq', value: '/' }]));
      expect(filtered.totals).toEqual(o.totals);
    });

    it('matches every filter value the domain accepts exactly, NUL, quotes, backslashes and wildcards included', async () => {
      const s = site('values');
      const paths = ['/a\u0000b', "/it's", '/back\\slash', '/100%_off', '/plain'];
      await seed(paths.map((path) => row(s, T0 + H, { path })));
      const total = async (filters: FilterClause[]) => (await getOverview(a.reports, q(s, T0, T0 + D, 'UTC', filters))).totals.pageviews;
      for (const path of paths) {
        expect(await total([{ dim: 'page', op: 'eq', value: path }])).toBe(1);
        expect(await total([{ dim: 'page', op: 'neq', value: path }])).toBe(paths.length - 1);
      }
      expect(await total([{ dim: 'page', op: 'contains', value: '\u0000' }])).toBe(1);
      expect(await total([{ dim: 'page', op: 'contains', value: '%' }])).toBe(1);
      expect(await total([{ dim: 'page', op: 'contains', value: '_' }])).toBe(1);
      expect(await total([{ dim: 'page', op: 'contains', value: '\\' }])).toBe(1);
      expect(await total([{ dim: 'page', op: 'contains', value: "'" }])).toBe(1);
    });

    it('takes the median of summed page durations of at least 5 s and the mean of per-page maximum scroll', async () => {
      const s = site('engagement');
      const [p1, p2, p3, p4, p5] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      await seed([
        row(s, T0 + H, { id: p1, visitor: 'v1' }),
        append(s, T0 + H + 10, p1, { duration: 3, scrolled: 30 }),
        append(s, T0 + H + 20, p1, { duration: 4, scrolled: 70 }), // p1: 7 s, scroll 70
        row(s, T0 + H, { id: p2, visitor: 'v2' }),
        append(s, T0 + H + 10, p2, { duration: 4 }), // p2: 4 s, below 5: not in the median
        row(s, T0 + H, { id: p3, visitor: 'v3', scrolled: 50 }), // p3: scroll 50, no duration
        row(s, T0 + 2 * H, { id: p4, visitor: 'v4' }),
        append(s, T0 + D + 600, p4, { duration: 12 }), // arrives after the range: still p4's
        row(s, T0 + 3 * H, { id: p5, unique: true, duration: 20, imported: true }), // imported own duration
        append(s, T0 + H, randomUUID(), { duration: 99 }), // orphan: no parent, no effect
      ]);
      const o = await getOverview(a.reports, q(s, T0, T0 + D));
      expect(o.totals).toEqual({ pageviews: 5, visitors: 5, avg_duration_s: 12, avg_scroll: 60 });
      expect(o.series[1]).toMatchObject({ pageviews: 3, duration_s: 7, scrolled: 60 });
      const r = await getRetention(a.reports, q(s, T0, T0 + D));
      expect(r.pageviews_measured).toBe(4); // p1, p2, p4, p5 have a duration
      expect(r.duration).toEqual([
        { s: 5, share: 0.75 }, { s: 10, share: 0.5 }, { s: 30, share: 0 }, { s: 60, share: 0 },
        { s: 120, share: 0 }, { s: 300, share: 0 }, { s: 600, share: 0 },
      ]);
      expect(r.scroll).toEqual([{ pct: 25, share: 1 }, { pct: 50, share: 1 }, { pct: 75, share: 0 }, { pct: 100, share: 0 }]);
    });

    it('gives no median duration when no page total reaches 5 s, in its buckets or over the range, and still the mean scroll', async () => {
      const s = site('short-visits');
      const [p1, p2] = [randomUUID(), randomUUID()];
      await seed([
        row(s, T0 + H, { id: p1, visitor: 'v1', duration: 1, scrolled: 40 }),
        append(s, T0 + H + 10, p1, { duration: 3 }), // p1: 4 s
        row(s, T0 + D + 2 * H, { id: p2, visitor: 'v2', duration: 2, scrolled: 80 }), // p2: 2 s
      ]);
      const o = await getOverview(a.reports, q(s, T0, T0 + 2 * D));
      expect(o.totals).toEqual({ pageviews: 2, visitors: 2, avg_duration_s: null, avg_scroll: 60 });
      expect(o.series.filter((b) => b.pageviews > 0).map((b) => [b.duration_s, b.scrolled])).toEqual([
        [null, 40],
        [null, 80],
      ]);
    });

    it('counts partial first and last hours exactly', async () => {
      const s = site('partial');
      const from = T0 + 10 * H + 15 * 60; // 10:15
      const to = T0 + 12 * H + 45 * 60; // 12:45
      await seed([
        row(s, T0 + 10 * H + 10 * 60, { visitor: 'a' }), // 10:10: before
        row(s, T0 + 10 * H + 20 * 60, { visitor: 'b' }), // 10:20
        row(s, T0 + 11 * H + 30 * 60, { visitor: 'c' }),
        row(s, T0 + 12 * H + 40 * 60, { visitor: 'd' }), // 12:40
        row(s, T0 + 12 * H + 50 * 60, { visitor: 'e' }), // 12:50: after
      ]);
      const o = await getOverview(a.reports, q(s, from, to));
      expect(o.series.map((b) => [b.t, b.pageviews])).toEqual([[T0 + 10 * H, 1], [T0 + 11 * H, 1], [T0 + 12 * H, 1]]);
      expect(o.totals.pageviews).toBe(3);
    });

    it('follows a 23-hour DST day in Europe/Amsterdam', async () => {
      const s = site('ams');
      const tz = 'Europe/Amsterdam';
      const from = zonedToUnix(tz, 2024, 3, 31); // 2024-03-30T23:00Z
      const to = zonedToUnix(tz, 2024, 4, 1); // 2024-03-31T22:00Z
      expect([from, to - from]).toEqual([Date.UTC(2024, 2, 30, 23) / 1000, 23 * H]);
      await seed([
        row(s, from + 90 * 60, { visitor: 'a' }), // 01:30 CET
        row(s, from + 150 * 60, { visitor: 'b' }), // 03:30 CEST (02:00–03:00 does not exist)
        row(s, to - 60, { visitor: 'c' }), // 23:59 CEST
        row(s, from - 30 * 60, { visitor: 'p' }), // the previous day, 23:30
      ]);
      const o = await getOverview(a.reports, q(s, from, to, tz));
      expect(o.granularity).toBe('hour');
      expect(o.series).toHaveLength(23);
      expect(o.series.slice(0, 3).map((b) => [b.t - from, b.pageviews])).toEqual([[0, 0], [H, 1], [2 * H, 1]]);
      expect(o.series[22]).toMatchObject({ t: to - H, pageviews: 1 });
      // The previous day is a whole 24-hour day of the same clock times.
      expect(o.previous_range).toEqual({ from: Date.UTC(2024, 2, 29, 23) / 1000, to: from });
      expect(o.previous.pageviews).toBe(1);
      const week = await getOverview(a.reports, q(s, zonedToUnix(tz, 2024, 3, 28), zonedToUnix(tz, 2024, 4, 4), tz));
      expect(week.granularity).toBe('day');
      expect(week.series.map((b) => b.t)).toEqual([28, 29, 30, 31].map((d) => zonedToUnix(tz, 2024, 3, d)).concat([1, 2, 3].map((d) => zonedToUnix(tz, 2024, 4, d))));
      expect(week.series.map((b) => b.pageviews)).toEqual([0, 0, 1, 3, 0, 0, 0]);
    });

    it('follows a 25-hour DST day in America/New_York', async () => {
      const s = site('nyc');
      const tz = 'America/New_York';
      const from = zonedToUnix(tz, 2024, 11, 3); // 04:00Z
      const to = zonedToUnix(tz, 2024, 11, 4); // 05:00Z next day
      expect(to - from).toBe(25 * H);
      await seed([
        row(s, Date.UTC(2024, 10, 3, 5, 30) / 1000, { visitor: 'a' }), // first 01:30 (EDT)
        row(s, Date.UTC(2024, 10, 3, 6, 30) / 1000, { visitor: 'b' }), // second 01:30 (EST)
        row(s, Date.UTC(2024, 10, 3, 6, 40) / 1000, { visitor: 'b' }),
      ]);
      const o = await getOverview(a.reports, q(s, from, to, tz));
      expect(o.series).toHaveLength(25);
      expect(o.series.slice(0, 4).map((b) => [b.t - from, b.pageviews, b.visitors])).toEqual([[0, 0, 0], [H, 1, 1], [2 * H, 2, 1], [3 * H, 0, 0]]);
      expect(o.previous_range).toEqual({ from: zonedToUnix(tz, 2024, 11, 2), to: from });
      expect(o.previous_range.to - o.previous_range.from).toBe(24 * H);
    });

    it('starts a multi-day range mid-day in Asia/Kolkata', async () => {
      const s = site('kolkata');
      const tz = 'Asia/Kolkata';
      const from = zonedToUnix(tz, 2024, 6, 10, 13); // 07:30Z
      const to = from + 3 * D;
      await seed([
        row(s, from - 60, { visitor: 'early' }), // same local day, before `from`: out
        row(s, from + 60, { visitor: 'a' }), // Jun 10
        row(s, zonedToUnix(tz, 2024, 6, 11, 0, 10), { visitor: 'b' }), // Jun 11, 00:10 IST (Jun 10 18:40Z)
        row(s, to - 60, { visitor: 'c' }), // Jun 13
      ]);
      const o = await getOverview(a.reports, q(s, from, to, tz));
      expect(o.granularity).toBe('day');
      expect(o.series.map((b) => [b.t, b.pageviews])).toEqual([
        [zonedToUnix(tz, 2024, 6, 10), 1],
        [zonedToUnix(tz, 2024, 6, 11), 1],
        [zonedToUnix(tz, 2024, 6, 12), 0],
        [zonedToUnix(tz, 2024, 6, 13), 1],
      ]);
      expect(o.series[0]!.t).toBe(Date.UTC(2024, 5, 9, 18, 30) / 1000);
      expect(o.previous_range).toEqual({ from: from - 4 * D, to: to - 4 * D });
    });

    it('buckets weeks from local Mondays and months from the local 1st, each bucket counting its distinct daily visitors', async () => {
      const s = site('weeks');
      const tz = 'America/New_York';
      const from = zonedToUnix(tz, 2024, 3, 1); // a Friday; DST starts on Sunday Mar 10
      const to = zonedToUnix(tz, 2024, 5, 1);
      // Hashes rotate at 00:00 UTC, as the collector's do: a person's hash is the name and the UTC day.
      const at = (m: number, d: number, h: number, min: number, person: string) => {
        const ts = zonedToUnix(tz, 2024, m, d, h, min);
        return row(s, ts, { visitor: `${person}-${new Date(ts * 1000).toISOString().slice(0, 10)}` });
      };
      await seed([
        at(3, 4, 9, 0, 'a'), // Mon Mar 4
        at(3, 10, 23, 30, 'a'), // Sun Mar 10, late (Mar 11 UTC): still the week of Mar 4
        at(3, 11, 0, 30, 'b'), // Mon Mar 11, just after local midnight
        at(3, 31, 23, 59, 'c'), // Sun Mar 31: March, the week of Mar 25
        at(4, 1, 0, 1, 'c'), // Mon Apr 1: April; the same UTC day (04:00Z) as the row before, so one daily visitor
      ]);
      const weeks = await getOverview(a.reports, q(s, from, to, tz), 'week');
      expect(weeks.granularity).toBe('week');
      const monday = (m: number, d: number) => zonedToUnix(tz, 2024, m, d);
      expect(weeks.series.filter((b) => b.pageviews > 0).map((b) => [b.t, b.pageviews, b.visitors])).toEqual([
        [monday(3, 4), 2, 2],
        [monday(3, 11), 1, 1],
        [monday(3, 25), 1, 1],
        [monday(4, 1), 1, 1],
      ]);
      expect(weeks.series[0]!.t).toBe(monday(2, 26)); // the Monday before a Friday start
      const months = await getOverview(a.reports, q(s, from, to, tz), 'month');
      expect(months.series.map((b) => [b.t, b.pageviews, b.visitors])).toEqual([
        [zonedToUnix(tz, 2024, 3, 1), 4, 4],
        [zonedToUnix(tz, 2024, 4, 1), 1, 1],
      ]);
      expect([months.totals.pageviews, months.totals.visitors]).toEqual([5, 4]);
    });

    it('breaks down every dimension: value desc then name, empty labels only for pages and referrers', async () => {
      const s = site('dims');
      const base = { referrer_host: 'news.example', source: 'news.example', country: 'DE', device: 'desktop', browser: 'Firefox', os: 'Linux', language: 'de' };
      await seed([
        row(s, T0 + H, { ...base, visitor: 'v1', unique: true, path: '/a', screen_width: 400, utm_source: 'nl', utm_medium: 'email', utm_campaign: 'spring', utm_term: 't', utm_content: 'c' }),
        row(s, T0 + H, { ...base, visitor: 'v1', unique: false, path: '/b', screen_width: 800 }),
        row(s, T0 + H, { visitor: 'v2', unique: true, path: '/b', country: 'FR', device: 'mobile', browser: 'Safari', os: 'iOS', language: 'fr', screen_width: 1000 }),
        row(s, T0 + H, { visitor: 'v3', unique: true, path: '/', source: 'ads', referrer_host: null, screen_width: 1920, browser: 'Firefox' }),
        row(s, T0 + H, { visitor: null, unique: true, path: '/a', imported: true }),
        event(s, T0 + H, 'signup', { visitor: 'v1' }),
        event(s, T0 + 2 * H, 'signup', { visitor: null, imported: true }),
        event(s, T0 + 3 * H, 'buy', { visitor: 'v2' }),
        event(s, T0 + 3 * H, 'buy', { visitor: 'v3', bot: true }),
      ]);
      const b = async (dim: Parameters<typeof getBreakdown>[2]) =>
        (await getBreakdown(a.reports, q(s, T0, T0 + D), dim, 10)).rows.map((r) => [r.name, r.value, r.visitors]);
      expect(await b('pages')).toEqual([['/a', 2, 2], ['/b', 2, 2], ['/', 1, 1]]);
      expect(await b('entry_pages')).toEqual([['/a', 2, 2], ['/', 1, 1], ['/b', 1, 1]]);
      expect(await b('referrers')).toEqual([['', 3, 3], ['news.example', 2, 1]]);
      expect(await b('sources')).toEqual([['news.example', 2, 1], ['ads', 1, 1]]);
      expect(await b('utm_sources')).toEqual([['nl', 1, 1]]);
      expect(await b('utm_mediums')).toEqual([['email', 1, 1]]);
      expect(await b('utm_campaigns')).toEqual([['spring', 1, 1]]);
      expect(await b('utm_terms')).toEqual([['t', 1, 1]]);
      expect(await b('utm_contents')).toEqual([['c', 1, 1]]);
      expect(await b('countries')).toEqual([['DE', 2, 1], ['FR', 1, 1]]);
      expect(await b('devices')).toEqual([['desktop', 2, 1], ['mobile', 1, 1]]);
      expect(await b('browsers')).toEqual([['Firefox', 3, 2], ['Safari', 1, 1]]);
      expect(await b('os')).toEqual([['Linux', 2, 1], ['iOS', 1, 1]]);
      expect(await b('languages')).toEqual([['de', 2, 1], ['fr', 1, 1]]);
      expect(await b('screens')).toEqual([['Desktop', 1, 1], ['Laptop', 1, 1], ['Mobile', 1, 1], ['Tablet', 1, 1]]);
      const events = (await getBreakdown(a.reports, q(s, T0, T0 + D), 'events', 10)).rows;
      expect(events).toEqual([
        { name: 'signup', value: 2, visitors: 1, last_seen: new Date((T0 + 2 * H) * 1000).toISOString() },
        { name: 'buy', value: 1, visitors: 1, last_seen: new Date((T0 + 3 * H) * 1000).toISOString() },
      ]);
      const limited = (await getBreakdown(a.reports, q(s, T0, T0 + D), 'pages', 1)).rows;
      expect(limited.map((r) => r.name)).toEqual(['/a']);
      const summary = await getOverviewSummary(a.reports, q(s, T0, T0 + D), 5);
      expect(summary.events).toEqual({
        totals: { count: 3, visitors: 2 },
        previous: { count: 0, visitors: 0 },
        top: [{ name: 'signup', value: 2, visitors: 1 }, { name: 'buy', value: 1, visitors: 1 }],
      });
      expect(summary.tech.browsers).toEqual([{ name: 'Firefox', value: 3, visitors: 2 }, { name: 'Safari', value: 1, visitors: 1 }]);
    });

    it('applies every filter operator to totals and lists', async () => {
      const s = site('filters');
      await seed([
        row(s, T0 + H, { visitor: 'v1', path: '/pricing', country: 'DE' }),
        row(s, T0 + H, { visitor: 'v2', path: '/pricing/team', country: 'FR' }),
        row(s, T0 + H, { visitor: 'v3', path: '/blog', country: 'DE' }),
        event(s, T0 + H, 'signup', { visitor: 'v1', path: '/pricing', country: 'DE' }),
      ]);
      const total = async (filters: FilterClause[]) => (await getOverview(a.reports, q(s, T0, T0 + D, 'UTC', filters))).totals.pageviews;
      expect(await total([{ dim: 'page', op: 'eq', value: '/pricing' }])).toBe(1);
      expect(await total([{ dim: 'page', op: 'neq', value: '/pricing' }])).toBe(2);
      expect(await total([{ dim: 'page', op: 'contains', value: 'pricing' }])).toBe(2);
      expect(await total([{ dim: 'page', op: 'contains', value: '%' }])).toBe(0);
      expect(await total([{ dim: 'country', op: 'eq', value: 'DE' }, { dim: 'page', op: 'contains', value: 'pri' }])).toBe(1);
      expect(await total([{ dim: 'referrer', op: 'eq', value: '' }])).toBe(3);
      // A missing label reads as '': `neq ''` keeps only rows that have one; `contains` is case-sensitive.
      expect(await total([{ dim: 'referrer', op: 'neq', value: '' }])).toBe(0);
      expect(await total([{ dim: 'country', op: 'neq', value: '' }])).toBe(3);
      expect(await total([{ dim: 'page', op: 'contains', value: 'PRI' }])).toBe(0);
      expect(await total([{ dim: 'browser', op: 'neq', value: 'Firefox' }])).toBe(3);
      const rows = (await getBreakdown(a.reports, q(s, T0, T0 + D, 'UTC', [{ dim: 'country', op: 'neq', value: 'FR' }]), 'pages', 10)).rows;
      expect(rows.map((r) => r.name)).toEqual(['/blog', '/pricing']);
      const ev = await getOverviewSummary(a.reports, q(s, T0, T0 + D, 'UTC', [{ dim: 'event', op: 'eq', value: 'signup' }]), 5);
      expect(ev.events.totals).toEqual({ count: 1, visitors: 1 });
    });

    it('keeps under an event filter the visitors who did (or did not do) the event in the range: their pages, sources, events', async () => {
      const s = site('event-filter');
      await seed([
        row(s, T0 + H, { visitor: 'v1', path: '/pricing', source: 'Google', duration: 12 }),
        event(s, T0 + 2 * H, 'signup', { visitor: 'v1', path: '/pricing' }),
        event(s, T0 + 2 * H, 'download', { visitor: 'v1', path: '/pricing' }),
        row(s, T0 + H, { visitor: 'v2', path: '/blog', source: 'Twitter', duration: 40 }),
        event(s, T0 + 2 * H, 'buy', { visitor: 'v2', path: '/blog' }),
        row(s, T0 + H, { visitor: 'v3', path: '/about' }),
        row(s, T0 + H, { visitor: 'v4', path: '/late' }),
        event(s, T0 - H, 'signup', { visitor: 'v4' }), // before the range
        row(s, T0 + H, { path: '/imported', unique: true, imported: true }), // no visitor hash
      ]);
      const read = (value: string, op: FilterClause['op'] = 'eq') => q(s, T0, T0 + D, 'UTC', [{ dim: 'event', op, value }]);
      const names = async (value: string, op: FilterClause['op'], dim: 'pages' | 'sources' | 'events') => (await getBreakdown(a.reports, read(value, op), dim, 10)).rows.map((r) => r.name);
      const signup = await getOverview(a.reports, read('signup'));
      expect([signup.totals.pageviews, signup.totals.visitors, signup.totals.avg_duration_s]).toEqual([1, 1, 12]);
      expect((await getRetention(a.reports, read('signup'))).pageviews_measured).toBe(1);
      expect(await names('signup', 'eq', 'pages')).toEqual(['/pricing']);
      expect(await names('signup', 'eq', 'sources')).toEqual(['Google']);
      // The events of those visitors, not only the one filtered on.
      expect(await names('signup', 'eq', 'events')).toEqual(['download', 'signup']);
      expect((await getOverviewSummary(a.reports, read('signup'), 5)).events.totals).toEqual({ count: 2, visitors: 1 });
      // Did not: every visitor with a hash and no signup in the range; imports are tied to no visitor.
      expect(await names('signup', 'neq', 'pages')).toEqual(['/about', '/blog', '/late']);
      expect((await getOverview(a.reports, read('signup', 'neq'))).totals.visitors).toBe(3);
      expect(await names('u', 'contains', 'pages')).toEqual(['/blog', '/pricing']);
      expect(await names('nobody', 'eq', 'pages')).toEqual([]);
    });

    it('matches a bare language subtag to every tag of the language, any case; a tag with a region exactly', async () => {
      const s = site('languages');
      await seed(['en', 'en-GB', 'EN-us', 'eng', 'de', null].map((language, i) => row(s, T0 + H, { visitor: `v${i}`, language })));
      const visitors = async (op: FilterClause['op'], value: string) => (await getOverview(a.reports, q(s, T0, T0 + D, 'UTC', [{ dim: 'language', op, value }]))).totals.visitors;
      expect(await visitors('eq', 'en')).toBe(3);
      expect(await visitors('eq', 'EN')).toBe(3);
      expect(await visitors('neq', 'en')).toBe(3);
      expect(await visitors('eq', 'en-GB')).toBe(1);
      expect(await visitors('eq', 'en-gb')).toBe(0);
      expect(await visitors('neq', 'en-GB')).toBe(5);
      const rows = (await getBreakdown(a.reports, q(s, T0, T0 + D, 'UTC', [{ dim: 'language', op: 'eq', value: 'en' }]), 'languages', 10)).rows;
      expect(rows.map((r) => r.name)).toEqual(['EN-us', 'en', 'en-GB']);
    });

    it('lists a filtered summary\'s top events up to its limit, its event totals over every name', async () => {
      const s = site('filtered-events');
      const de = { country: 'DE' };
      await seed([
        event(s, T0 + H, 'buy', { visitor: 'v1', ...de }),
        event(s, T0 + H, 'buy', { visitor: 'v2', ...de }),
        event(s, T0 + H, 'buy', { visitor: 'v3', ...de }),
        event(s, T0 + 2 * H, 'signup', { visitor: 'v1', ...de }),
        event(s, T0 + 2 * H, 'signup', { visitor: 'v2', ...de }),
        event(s, T0 + 3 * H, 'share', { visitor: 'v4', ...de }),
        event(s, T0 + 3 * H, 'buy', { visitor: 'v5', country: 'FR' }),
      ]);
      const summary = await getOverviewSummary(a.reports, q(s, T0, T0 + D, 'UTC', [{ dim: 'country', op: 'eq', value: 'DE' }]), 2);
      expect(summary.events.top).toEqual([{ name: 'buy', value: 3, visitors: 3 }, { name: 'signup', value: 2, visitors: 2 }]);
      expect(summary.events.totals).toEqual({ count: 6, visitors: 4 });
    });

    it('counts live visitors over five minutes and live pages over thirty', async () => {
      const s = site('live');
      const now = Math.floor(Date.now() / 1000);
      await seed([
        row(s, now - 60, { visitor: 'v1', path: '/now' }),
        event(s, now - 30, 'click', { visitor: 'v2' }),
        row(s, now - 20 * 60, { visitor: 'v3', path: '/earlier' }),
        row(s, now - 40 * 60, { visitor: 'v4', path: '/long-ago' }),
        row(s, now - 10, { visitor: 'v5', bot: true }),
      ]);
      const o = await getOverview(a.reports, q(s, now - D, now + 1, 'UTC', [], now));
      expect(o.live).toBe(2);
      // Live visitors under the report's filters, as every other number of the overview.
      const onNow = await getOverview(a.reports, q(s, now - D, now + 1, 'UTC', [{ dim: 'page', op: 'eq', value: '/now' }], now));
      expect([onNow.live, onNow.totals.visitors]).toEqual([1, 1]);
      const clickers = await getOverview(a.reports, q(s, now - D, now + 1, 'UTC', [{ dim: 'event', op: 'eq', value: 'click' }], now));
      expect(clickers.live).toBe(1);
      const elsewhere = await getOverview(a.reports, q(s, now - D, now + 1, 'UTC', [{ dim: 'page', op: 'neq', value: '/now' }], now));
      expect(elsewhere.live).toBe(1);
      const summary = await getOverviewSummary(a.reports, q(s, T0, T0 + D, 'UTC', [], now), 5);
      expect(summary.live.pages).toEqual([{ name: '/earlier', visitors: 1 }, { name: '/now', visitors: 1 }]);
      expect(o.forecast).toMatchObject({ bucket: now - (now % H), basis: 'elapsed' });
    });

    it('rolls up sites summary days from the 31-day cutoff, sparse, in tz', async () => {
      const s1 = site('sum1');
      const s2 = site('sum2');
      const now = Math.floor(Date.now() / 1000);
      await seed([
        row(s1, now - 32 * D, { visitor: 'old' }), // before the cutoff
        row(s1, now - 2 * D, { visitor: 'a' }),
        row(s1, now - 2 * D + 1, { visitor: 'a' }),
        row(s1, now - 60, { visitor: 'b' }),
      ]);
      const r = await getSitesSummary(
        { reports: a.reports, apiRequests: TIMESTREAM_API_REQUESTS },
        [
          { hostname: s2, registration: REGISTRATION, pinned_at: null, kind: 'api', verified: false },
          { hostname: s1, registration: REGISTRATION, pinned_at: null, kind: 'web', verified: true },
        ],
        'UTC',
        now,
      );
      const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
      expect(r.sites).toEqual([
        { hostname: s2, pinned_at: null, live: 0, days: [], api_days: [] },
        { hostname: s1, pinned_at: null, live: 1, days: [{ day: day(now - 2 * D), pageviews: 2, visitors: 1 }, { day: day(now - 60), pageviews: 1, visitors: 1 }] },
      ]);
    });
    it('never counts the rows of another registration of the hostname, in any report', async () => {
      const now = T0 + 3 * D;
      /** Two days of traffic up to `now`: every kind, label and engagement the reports read. */
      const history = (host: string, registration: string, shift: number): EventRow[] => {
        const at = (t: number) => now - t + shift;
        const r = (t: number, id: string, over: Partial<EventRow>) => row(host, at(t), { registration, id, ...over });
        return [
          r(2 * D - H, 'p1', { visitor: 'v1', path: '/a', referrer_host: 'google.com', source: 'google.com', country: 'DE', browser: 'Firefox', os: 'Linux', device: 'desktop', language: 'de', screen_width: 1400, unique: true, duration: 12 }),
          r(2 * D - 2 * H, 'p2', { visitor: 'v1', path: '/b', utm_source: 'mail', utm_medium: 'email', utm_campaign: 'spring', utm_term: 't', utm_content: 'c', source: 'mail' }),
          r(2 * D - 3 * H, 'p2', { visitor: 'v1', path: '/b' }), // a replay of p2
          r(D + H, 'p3', { visitor: 'v2', path: '/a', country: 'FR', browser: 'Safari', os: 'iOS', device: 'mobile', screen_width: 400, scrolled: 40 }),
          r(D + H - 30, 'a3', { kind: 'append', original_id: 'p3', duration: 45, scrolled: 90 }),
          r(D, 'p4', { path: '/imported', unique: true, imported: true, source_id: 'sa-1' }),
          r(D - 60, 'p5', { visitor: 'v3', bot: true, path: '/bot' }),
          r(H, 'e1', { kind: 'event', event: 'signup', visitor: 'v2', path: '/a' }),
          r(H - 5, 'e2', { kind: 'event', event: 'signup', visitor: 'v4' }),
          r(10 * 60, 'p6', { visitor: 'v5', path: '/live', browser: 'Chrome' }),
          r(60, 'p7', { visitor: 'v5', path: '/now' }),
          r(30, 'a7', { kind: 'append', original_id: 'p7', duration: 8 }),
        ];
      };
      const host = site('reregistered');
      const alone = site('alone');
      const OTHER = 'reg-earlier-owner';
      // The other registration's rows share ids, visitors and times, and arrive before and after (older) ours.
      await seed(history(host, OTHER, 0));
      await seed([...history(host, REGISTRATION, 0), ...history(alone, REGISTRATION, 0)]);
      await seed(history(host, OTHER, -5 * 60));

      const from = now - 2 * D - 6 * H;
      const reads = async (hostname: string, registration: string) => {
        const request = { ...q(hostname, from, now + H, 'UTC', [], now), registration };
        const filtered = { ...request, filters: [{ dim: 'page' as const, op: 'contains' as const, value: '' }] };
        return {
          overview: await getOverview(a.reports, request),
          filtered: await getOverview(a.reports, filtered),
          summary: await getOverviewSummary(a.reports, request, 20),
          breakdowns: await Promise.all(BREAKDOWN_DIMS.map(async (dim) => [dim, await getBreakdown(a.reports, request, dim, 100)])),
          retention: await getRetention(a.reports, request),
          days: (await getSitesSummary({ reports: a.reports, apiRequests: TIMESTREAM_API_REQUESTS }, [{ hostname, registration, pinned_at: null, kind: 'web', verified: true }], 'UTC', now)).sites.map(
            ({ live, days }) => ({ live, days }),
          ),
        };
      };
      const mine = await reads(host, REGISTRATION);
      expect(mine).toEqual(await reads(alone, REGISTRATION));
      expect(mine.overview.totals).toMatchObject({ pageviews: 6, visitors: 4 });
      expect(mine.overview.live).toBe(1);
      // The other registration's rows are there, and they are its own.
      expect((await reads(host, OTHER)).overview.totals.pageviews).toBe(6);
      expect((await reads(host, 'reg-nobody')).overview.totals).toEqual({ pageviews: 0, visitors: 0, avg_duration_s: null, avg_scroll: null });
    });
  });
}
