/**
 * The goals, funnels and event metadata contract (issue 37): hand-computed
 * datasets read through the same builders the API answers with, against
 * every report store that keeps them (DuckDB and ClickHouse, with and
 * without rollups; Timestream is frozen and refuses them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { parseFunnelCreate, parseGoalCreate } from '#domain/goals/goal.ts';
import type { FunnelRecord, GoalRecord } from '#ports/goals.ts';
import { getBreakdown, getOverview } from '#reports/reports.ts';
import { getFunnelStats, getGoalStats, getMetadataKeys, getMetadataValues } from '#reports/goal-reports.ts';
import { REGISTRATION, row } from './report-store.contract.ts';
import { titleOf, type ReportAdapter, type StoreUnderTest } from './report-stores.ts';

const T0 = Date.UTC(2024, 4, 1) / 1000;
const H = 3600;
const D = 86400;

const site = (name: string) => `${name}-${randomUUID().slice(0, 8)}.example`;
const event = (s: string, ts: number, name: string, over: Partial<EventRow> = {}) => row(s, ts, { kind: 'event', event: name, ...over });

function goal(s: string, body: unknown): GoalRecord {
  const parsed = parseGoalCreate(body);
  if (!parsed.ok) throw new Error(parsed.error);
  return { id: randomUUID(), site: s, created_at: new Date(0).toISOString(), ...parsed.value };
}

function funnel(s: string, steps: unknown): FunnelRecord {
  const parsed = parseFunnelCreate({ name: 'f', steps });
  if (!parsed.ok) throw new Error(parsed.error);
  return { id: randomUUID(), site: s, created_at: new Date(0).toISOString(), ...parsed.value };
}

const request = (s: string, from: number, to: number, filters: FilterClause[] = []) => ({ site: s, registration: REGISTRATION, range: { from, to }, tz: 'UTC', filters, now: to + 10 * D });

/** A goal clause as the reports handler resolves it. */
const goalFilter = (g: GoalRecord): FilterClause => ({ dim: 'goal', op: 'eq', value: g.id, goal: { site: g.site, registration: REGISTRATION, type: g.type, match: g.match } });

/**
 * Nine visitor-days on day 1 (v1..v5, v8..v10, and v6a just before midnight) and one on day 2
 * (v6b: the same person after UTC midnight, a new hash). v4 and v5 share a user agent on two
 * addresses: two hashes. Besides: a copy of v1's /pricing, a bot, an imported event.
 */
function dataset(s: string) {
  const pricing = randomUUID();
  return [
    row(s, T0 + 1 * H, { visitor: 'v1', path: '/', country: 'DE', source: 'google' }),
    row(s, T0 + 2 * H, { id: pricing, visitor: 'v1', path: '/pricing', country: 'DE' }),
    row(s, T0 + 2 * H + 100, { id: pricing, visitor: 'v1', path: '/pricing', country: 'DE' }), // a copy: no conversion
    event(s, T0 + 3 * H, 'Sign_up', { visitor: 'v1', country: 'DE' }),
    row(s, T0 + 1 * H, { visitor: 'v2', path: '/pricing', country: 'FR', source: 'news' }),
    row(s, T0 + 2 * H, { visitor: 'v2', path: '/', country: 'FR' }),
    event(s, T0 + 3 * H, 'Sign_up', { visitor: 'v2', country: 'FR' }),
    row(s, T0 + 1 * H, { visitor: 'v3', path: '/', country: 'DE', source: 'google' }),
    row(s, T0 + 2 * H, { visitor: 'v3', path: '/' }),
    row(s, T0 + 3 * H, { visitor: 'v3', path: '/pricing' }),
    row(s, T0 + 4 * H, { visitor: 'v3', path: '/' }),
    row(s, T0 + 5 * H, { visitor: 'v4', path: '/blog/a', browser: 'Firefox' }),
    row(s, T0 + 5 * H, { visitor: 'v5', path: '/blog/a/b', browser: 'Firefox' }),
    row(s, T0 + 6 * H, { visitor: 'v5', path: '/de/pricing', browser: 'Firefox' }),
    event(s, T0 + 7 * H, 'Sign_up', { imported: true }), // no hash: a conversion, no visitor
    row(s, T0 + 8 * H, { visitor: 'v7', path: '/pricing', bot: true }),
    row(s, T0 + 9 * H, { visitor: 'v8', path: '/blog' }),
    row(s, T0 + 10 * H, { visitor: 'v9', path: '/a_b' }),
    row(s, T0 + 10 * H, { visitor: 'v10', path: '/axb' }),
    row(s, T0 + D - 60, { visitor: 'v6a', path: '/' }),
    row(s, T0 + D + 60, { visitor: 'v6b', path: '/pricing' }),
  ];
}

export function conversionsContract(store: StoreUnderTest): void {
  describe.skipIf(store.skip !== null)(titleOf('goals, funnels and metadata', store, store.skip), () => {
    let a: ReportAdapter;
    const s = site('conversions');
    const g = {
      pricing: goal(s, { type: 'page', match: '/pricing' }),
      blog: goal(s, { type: 'page', match: '/blog/*' }),
      anyPricing: goal(s, { type: 'page', match: '*/pricing' }),
      signup: goal(s, { type: 'event', match: 'Sign up!' }),
      literal: goal(s, { type: 'page', match: '/a_b*' }),
    };
    beforeAll(async () => {
      a = await store.open();
      await a.events.saveEvents(dataset(s));
    });
    afterAll(() => a.close());

    it('counts conversions and converted visitor-days per goal: exact and wildcard paths, normalized event names, imports without visitors', async () => {
      expect(g.signup.match).toBe('Sign_up');
      const stats = await getGoalStats(a.reports, request(s, T0, T0 + D), Object.values(g));
      expect(stats.visitors).toBe(9);
      expect(stats.goals.map((x) => [x.name, x.conversions, x.visitors, x.conversion_rate])).toEqual([
        ['Visit /pricing', 3, 3, 0.3333],
        ['Visit /blog/*', 2, 2, 0.2222],
        ['Visit */pricing', 4, 4, 0.4444],
        ['Sign_up', 3, 2, 0.2222],
        ['Visit /a_b*', 1, 1, 0.1111],
      ]);
      expect(stats.previous.every((x) => x.conversions === 0 && x.visitors === 0 && x.conversion_rate === 0)).toBe(true);
      expect(stats.previous_range).toEqual({ from: T0 - D, to: T0 });
    });

    it('applies filters to goal stats: the rows and the visitor-days both', async () => {
      const stats = await getGoalStats(a.reports, request(s, T0, T0 + D, [{ dim: 'country', op: 'eq', value: 'DE' }]), [g.pricing, g.signup]);
      expect(stats.visitors).toBe(2);
      expect(stats.goals.map((x) => [x.conversions, x.visitors, x.conversion_rate])).toEqual([[1, 1, 0.5], [1, 1, 0.5]]);
    });

    it('walks ordered funnels within one visitor-day: steps out of order are not counted, others may come between', async () => {
      const f = funnel(s, [{ type: 'page', match: '/' }, { type: 'page', match: '/pricing' }, { type: 'event', match: 'Sign up' }]);
      const stats = await getFunnelStats(a.reports, request(s, T0, T0 + D), f);
      expect(stats.visitors).toBe(9);
      expect(stats.steps.map((x) => [x.visitors, x.dropoff, x.conversion_rate])).toEqual([[4, 0, 1], [2, 2, 0.5], [1, 1, 0.25]]);
    });

    it('counts a repeated step only from a later row', async () => {
      const f = funnel(s, [{ type: 'page', match: '/' }, { type: 'page', match: '/pricing' }, { type: 'page', match: '/' }]);
      const stats = await getFunnelStats(a.reports, request(s, T0, T0 + D), f);
      expect(stats.steps.map((x) => x.visitors)).toEqual([4, 2, 1]);
      const twice = funnel(s, [{ type: 'page', match: '/' }, { type: 'page', match: '/' }]);
      expect((await getFunnelStats(a.reports, request(s, T0, T0 + D), twice)).steps.map((x) => x.visitors)).toEqual([4, 1]);
    });

    it('does not order two hits of the same millisecond', async () => {
      const t = site('same-ms');
      await a.events.saveEvents([row(t, T0 + H, { visitor: 'w1', path: '/' }), row(t, T0 + H, { visitor: 'w1', path: '/pricing' }), row(t, T0 + 2 * H, { visitor: 'w2', path: '/' }), row(t, T0 + 2 * H + 1, { visitor: 'w2', path: '/pricing' })]);
      const f = funnel(t, [{ type: 'page', match: '/' }, { type: 'page', match: '/pricing' }]);
      expect((await getFunnelStats(a.reports, request(t, T0, T0 + D), f)).steps.map((x) => x.visitors)).toEqual([2, 1]);
    });

    it('keeps a visitor crossing UTC midnight as two visitor-days that each walk alone', async () => {
      const f = funnel(s, [{ type: 'page', match: '/' }, { type: 'page', match: '/pricing' }]);
      const stats = await getFunnelStats(a.reports, request(s, T0, T0 + 2 * D), f);
      expect(stats.visitors).toBe(10);
      expect(stats.steps.map((x) => x.visitors)).toEqual([4, 2]);
    });

    it('applies filters to funnels', async () => {
      const f = funnel(s, [{ type: 'page', match: '/' }, { type: 'page', match: '/pricing' }]);
      const stats = await getFunnelStats(a.reports, request(s, T0, T0 + D, [{ dim: 'country', op: 'eq', value: 'DE' }]), f);
      // v1's rows are all DE; of v3's only the first.
      expect(stats.steps.map((x) => x.visitors)).toEqual([2, 1]);
    });

    it('narrows breakdowns and the overview to converted visitor-days with the goal filter', async () => {
      const range = request(s, T0, T0 + D, [goalFilter(g.signup)]);
      expect((await getBreakdown(a.reports, request(s, T0, T0 + D), 'sources', 10)).rows.map((r) => [r.name, r.value])).toEqual([['google', 2], ['news', 1]]);
      expect((await getBreakdown(a.reports, range, 'sources', 10)).rows.map((r) => [r.name, r.value, r.visitors])).toEqual([['google', 1, 1], ['news', 1, 1]]);
      expect((await getBreakdown(a.reports, range, 'pages', 10)).rows.map((r) => [r.name, r.value])).toEqual([['/', 2], ['/pricing', 2]]);
      const o = await getOverview(a.reports, range);
      expect([o.totals.pageviews, o.totals.visitors]).toEqual([4, 2]);
      // Conversions count within each read's own range: none in the previous period.
      expect(o.previous.pageviews).toBe(0);
      const blog = await getBreakdown(a.reports, request(s, T0, T0 + D, [goalFilter(g.blog), { dim: 'browser', op: 'eq', value: 'Firefox' }]), 'pages', 10);
      expect(blog.rows.map((r) => [r.name, r.value])).toEqual([['/blog/a', 1], ['/blog/a/b', 1], ['/de/pricing', 1]]);
    });

    it('lists an event’s metadata keys and a key’s top values, leaving unparsable metadata, bots and other events out', async () => {
      const m = site('metadata');
      await a.events.saveEvents([
        event(m, T0 + H, 'Purchase', { visitor: 'v1', metadata: '{"plan":"pro","amount":10}' }),
        event(m, T0 + H, 'Purchase', { visitor: 'v2', metadata: '{"plan":"pro","amount":20,"coupon":true}' }),
        event(m, T0 + H, 'Purchase', { visitor: 'v3', metadata: '{"plan":"free"}' }),
        event(m, T0 + H, 'Purchase', { imported: true, metadata: '{"plan":"pro"}' }),
        event(m, T0 + H, 'Purchase', { visitor: 'v4', metadata: '{"plan":"pr' }), // truncated at 4,096 characters: no keys
        event(m, T0 + H, 'Purchase', { visitor: 'v4', metadata: '["plan"]' }),
        event(m, T0 + H, 'Purchase', { visitor: 'v5', metadata: '{"plan":"pro"}', bot: true }),
        event(m, T0 + H, 'Other', { visitor: 'v1', metadata: '{"plan":"x"}' }),
        event(m, T0 + D + H, 'Purchase', { visitor: 'v6', metadata: '{"plan":"late"}' }),
      ]);
      const q = request(m, T0, T0 + D);
      expect(await getMetadataKeys(a.reports, q, 'Purchase', 10)).toEqual({
        event: 'Purchase',
        keys: [{ key: 'plan', count: 4, visitors: 3 }, { key: 'amount', count: 2, visitors: 2 }, { key: 'coupon', count: 1, visitors: 1 }],
      });
      expect((await getMetadataValues(a.reports, q, 'Purchase', 'plan', 10)).values).toEqual([{ value: 'pro', count: 3, visitors: 2 }, { value: 'free', count: 1, visitors: 1 }]);
      expect((await getMetadataValues(a.reports, q, 'Purchase', 'amount', 10)).values.map((v) => v.value)).toEqual(['10', '20']);
      expect((await getMetadataValues(a.reports, q, 'Purchase', 'coupon', 10)).values).toEqual([{ value: 'true', count: 1, visitors: 1 }]);
      expect((await getMetadataKeys(a.reports, q, 'Purchase', 1)).keys.map((k) => k.key)).toEqual(['plan']);
      expect((await getMetadataValues(a.reports, q, 'Purchase', 'missing', 10)).values).toEqual([]);
    });

    it('reads a key by its own name only, whatever characters it has, and values of any JSON type as written (null as none)', async () => {
      const m = site('keys');
      await a.events.saveEvents([event(m, T0 + H, 'E', { visitor: 'v1', metadata: '{"a/b":"slash","~t":"tilde","$x":"dollar","":"empty","n":null,"o":{"z":1},"q\\"k":"quote","f":1.5}' })]);
      const q = request(m, T0, T0 + D);
      const value = async (key: string) => (await getMetadataValues(a.reports, q, 'E', key, 10)).values.map((v) => v.value);
      expect(await value('a/b')).toEqual(['slash']);
      expect(await value('~t')).toEqual(['tilde']);
      expect(await value('$x')).toEqual(['dollar']);
      expect(await value('')).toEqual(['empty']);
      expect(await value('n')).toEqual([]);
      expect(await value('o')).toEqual(['{"z":1}']);
      expect(await value('q"k')).toEqual(['quote']);
      expect(await value('f')).toEqual(['1.5']);
      expect(await value('a')).toEqual([]);
      expect((await getMetadataKeys(a.reports, q, 'E', 20)).keys.map((k) => k.key).sort()).toEqual(['', '$x', 'a/b', 'f', 'n', 'o', 'q"k', '~t']);
    });
  });
}
