/**
 * The DuckDB daily rollups (adapters/duckdb/rollups.ts) change no answer:
 * over random rows spread across days (visitor hashes per UTC day, as the
 * collector makes them; copies, bots, appends, events, entries, screens),
 * written in batches between reads, so rollups built by one read must be
 * forgotten by the next batch that touches their days, every breakdown, the
 * tech lists and the event totals equal the answers read from the rows alone,
 * for ranges with partial days at either end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbQueryRunner, DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import type { ReportScope } from '#ports/report-store.ts';
import { REGISTRATION, row } from './report-store.contract.ts';
import { DAY, filteredCountsExample, filteredCountsPairs, rolledEqualsRows, summaryExample, T0 } from './rollup-rows.ts';
import { planOverview } from '#domain/reports/overview.ts';
import { ROLLUP_DAYS } from '#reports/sql/dialects/duckdb-rollups.ts';
import { MAX_SUBJECTS, MAX_VARIANTS } from '#adapters/duckdb/rollups.ts';
import { subjectVariant } from '#reports/plan.ts';
import type { GoalMatch } from '#ports/goals.ts';
import type { FilterClause } from '#domain/reports/filter.ts';
import { log } from '#platform/log.ts';


let events: DuckDbEventStore;
let rolled: DuckDbReportStore;
let rows: DuckDbReportStore;
beforeAll(async () => {
  events = await DuckDbEventStore.open(':memory:', { log });
  const pool = { query: (sql: string, params?: Record<string, unknown>) => events.query(sql, params as never) };
  rolled = new DuckDbReportStore(pool as never, events);
  rows = new DuckDbReportStore(pool as never);
});
afterAll(() => events.close());

/** Seeded cases per rollup property (each writes several batches and compares every report): CI time. */
const DUCKDB_RUNS = 6;

describe('DuckDB daily rollups', () => {
  it('give every unfiltered breakdown, tech list, event total, summary list, retention and overview traffic (in zones of whole, half and quarter hours) the rows give, across batches written between reads', async () => {
    await rolledEqualsRows(events, rolled, rows, () => `rollup-${randomUUID().slice(0, 8)}.example`, DUCKDB_RUNS);
  }, 300_000);

  it('give filtered retention, overview traffic (one dim:value clause, or any clauses), summary lists and the pages, sources and events breakdowns the rows give, across batches written between reads', async () => {
    const plain = new SqlReportStore(new DuckDbQueryRunner({ query: (sql: string, params?: Record<string, unknown>) => events.query(sql, params as never) } as never));
    await rolledEqualsRows(events, rolled, rows, () => `rollup-${randomUUID().slice(0, 8)}.example`, DUCKDB_RUNS, { plain });
  }, 300_000);

  it('a day whose rollup a batch removed after the build is read from its rows, even when nothing builds it again', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const day = (d: number, hour: number, visitor: string, path: string) => row(site, 0, { ts: T0 + d * DAY + hour * 3_600_000, visitor: `${visitor}-${d}`, path });
    await events.saveEvents([day(0, 1, 'a', '/x'), day(1, 2, 'a', '/x'), day(2, 3, 'b', '/y')]);
    await events.ensureRollups(site, REGISTRATION, T0 / DAY, T0 / DAY + 2);
    // A late batch lands in day 1 after the build (an import, a redelivery): its rollup is gone.
    await events.saveEvents([day(1, 5, 'c', '/y')]);
    const neverBuilds = new DuckDbReportStore({ query: (sql: string, params?: Record<string, unknown>) => events.query(sql, params as never) } as never, { ensureRollups: async () => undefined, builtRollupDays: events.builtRollupDays.bind(events) });
    const scope: ReportScope = { site, registration: REGISTRATION, from: T0, to: T0 + 3 * DAY, filters: [] };
    expect(await neverBuilds.breakdown(scope, 'pages', 10)).toEqual(await rows.breakdown(scope, 'pages', 10));
    expect((await neverBuilds.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value, r.visitors])).toEqual([
      ['/x', 2, 2],
      ['/y', 2, 2],
    ]);
  });

  it('count a filtered visitor from its first pageview the filter keeps, over whole, partial and unsealed days', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    await events.saveEvents(filteredCountsExample(site).rows);
    for (const [answer, expected] of await filteredCountsPairs(rolled, rows, site)) expect(answer).toEqual(expected);
    // Read when the day after T0 was yesterday: its rows answer, its buckets starting at UTC midnight.
    const pool = { query: (sql: string, params?: Record<string, unknown>) => events.query(sql, params as never) };
    const dayAfter = new DuckDbReportStore(pool as never, events, () => T0 + 2 * DAY + 3_600_000);
    for (const [answer, expected] of await filteredCountsPairs(dayAfter, rows, site)) expect(answer).toEqual(expected);
    // The whole range in UTC: a, b and the unhashed pageview on the day after T0.
    const { boundaries } = planOverview({ from: T0 / 1000, to: T0 / 1000 + 3 * 86_400 }, 'UTC');
    const traffic = await rolled.traffic({ sites: [{ site, registration: REGISTRATION }], boundaries, filters: filteredCountsExample(site).filters });
    expect(traffic.map((t) => [t.bucket, t.pageviews, t.visitors])).toEqual([[1, 4, 3], [null, 4, 3]]);
  });

  it('gives the summary lists in one read: tech lists, events with their newest time, and event totals', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const example = summaryExample(site);
    await events.saveEvents(example.rows);
    const scope: ReportScope = { site, registration: REGISTRATION, ...example.range, filters: [] };
    const summary = await rolled.summaryLists(scope, ['browsers'], 10);
    expect(summary).toEqual(example.expected);
    expect(summary).toEqual(await rows.summaryLists(scope, ['browsers'], 10));
  });

  it('answers from the rows when a build fails', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    await events.saveEvents([row(site, 0, { ts: T0 + 3_600_000, visitor: 'a-0', path: '/x' }), row(site, 0, { ts: T0 + DAY + 3_600_000, visitor: 'b-1', path: '/y' })]);
    const failing = new DuckDbReportStore({ query: (sql: string, params?: Record<string, unknown>) => events.query(sql, params as never) } as never, {
      ensureRollups: () => Promise.reject(new Error('disk full')),
      builtRollupDays: events.builtRollupDays.bind(events),
    });
    const scope: ReportScope = { site, registration: REGISTRATION, from: T0, to: T0 + 2 * DAY, filters: [] };
    expect((await failing.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value])).toEqual([
      ['/x', 1],
      ['/y', 1],
    ]);
    expect(await events.builtRollupDays(site, REGISTRATION, T0 / DAY, T0 / DAY + 1)).toEqual([]);
  });

  it('reads again when a batch removes a rollup between its look and its read', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const day = (d: number, hour: number, visitor: string, path: string) => row(site, 0, { ts: T0 + d * DAY + hour * 3_600_000, visitor: `${visitor}-${d}`, path });
    await events.saveEvents([day(0, 1, 'a', '/x'), day(1, 2, 'a', '/x'), day(2, 3, 'b', '/y')]);
    await events.ensureRollups(site, REGISTRATION, T0 / DAY, T0 / DAY + 2);
    let raced = 0;
    // The batch lands just before the first rolled read runs, after the store saw every day built.
    const racing = {
      query: async (sql: string, params?: Record<string, unknown>) => {
        if (raced === 0 && sql.includes('still_built')) {
          raced++;
          await events.saveEvents([day(1, 5, 'c', '/y')]);
        }
        return events.query(sql, params as never);
      },
    };
    const store = new DuckDbReportStore(racing as never, events);
    const scope: ReportScope = { site, registration: REGISTRATION, from: T0, to: T0 + 3 * DAY, filters: [] };
    const answer = await store.breakdown(scope, 'pages', 10);
    expect(raced).toBe(1);
    expect(answer).toEqual(await rows.breakdown(scope, 'pages', 10));
    expect(answer.map((r) => [r.name, r.value])).toEqual([
      ['/x', 2],
      ['/y', 2],
    ]);
  });

  it('are remembered by the writer as the table holds them: a build adds its days, a batch removes the days it touches and those beside them', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const day = (d: number, visitor: string) => row(site, 0, { ts: T0 + d * DAY + 3_600_000, visitor: `${visitor}-${d}` });
    const first = T0 / DAY;
    const stored = async () =>
      (await events.query<{ day: number }>(`SELECT day FROM ${ROLLUP_DAYS} WHERE site = $site ORDER BY day`, { site })).map((d) => Number(d.day));
    await events.saveEvents([day(0, 'a'), day(2, 'b'), day(4, 'c')]);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 4)).toEqual([]);
    await events.ensureRollups(site, REGISTRATION, first, first + 4);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 4)).toEqual([first, first + 1, first + 2, first + 3, first + 4]);
    await events.saveEvents([day(2, 'd')]);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 4)).toEqual([first, first + 4]);
    expect(await stored()).toEqual([first, first + 4]);
  });

  it('are built for sealed days only: none for yesterday or today', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const now = Date.now();
    await events.saveEvents([row(site, 0, { ts: now - 3 * DAY, visitor: 'old' }), row(site, 0, { ts: now - 60_000, visitor: 'new' })]);
    const scope: ReportScope = { site, registration: REGISTRATION, from: now - 5 * DAY, to: now, filters: [] };
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => r.value)).toEqual([2]);
    const days = await events.query<{ day: number }>(`SELECT day FROM ${ROLLUP_DAYS} WHERE site = $site ORDER BY day`, { site });
    const today = Math.floor(now / DAY);
    expect(days.map((d) => Number(d.day))).toEqual([today - 4, today - 3, today - 2]);
  });

  it("are built ahead of any report by a warm-up (an import's end, a day's end): the sealed whole days of its range that lack them, after which a report builds none", async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const now = Date.now();
    const today = Math.floor(now / DAY);
    await events.saveEvents(Array.from({ length: 6 }, (_, d) => row(site, 0, { ts: (today - d) * DAY + 60_000, visitor: `v${d}` })));
    const ref = { site, registration: REGISTRATION };
    // From inside day today-6 (cut: not built) to now: today-5 … today-2 are sealed, yesterday and today open.
    expect(await rolled.warmRollups(ref, (today - 6) * DAY + 1, now)).toBe(4);
    expect(await events.builtRollupDays(site, REGISTRATION, today - 6, today)).toEqual([today - 5, today - 4, today - 3, today - 2]);
    expect(await rolled.warmRollups(ref, (today - 6) * DAY + 1, now)).toBe(0);
    const builds: number[] = [];
    const reader = new DuckDbReportStore({ query: (sql: string, params?: Record<string, unknown>) => events.query(sql, params as never) } as never, {
      ensureRollups: async (...args) => void builds.push(args[2]),
      builtRollupDays: events.builtRollupDays.bind(events),
    });
    const scope: ReportScope = { site, registration: REGISTRATION, from: (today - 5) * DAY, to: now, filters: [] };
    expect(await reader.breakdown(scope, 'pages', 10)).toEqual(await rows.breakdown(scope, 'pages', 10));
    expect(builds).toEqual([]);
  });

  it('are built per dim:value filter the first time a report needs them, none for other filters, and a batch forgets every variant of the days it touches', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const first = T0 / DAY;
    const day = (d: number, visitor: string, country: string) => row(site, 0, { ts: T0 + d * DAY + 3_600_000, visitor: `${visitor}-${d}`, country });
    await events.saveEvents([day(0, 'a', 'DE'), day(0, 'b', 'FR'), day(1, 'c', 'DE'), day(2, 'd', 'DE'), day(3, 'e', 'FR')]);
    const variants = async () =>
      (await events.query<{ variant: string; day: number }>(`SELECT variant, day FROM ${ROLLUP_DAYS} WHERE site = $site ORDER BY variant, day`, { site })).map((r) => [r.variant, Number(r.day)]);
    const scope = (filters: FilterClause[]): ReportScope => ({ site, registration: REGISTRATION, from: T0, to: T0 + 4 * DAY, filters });
    const de: FilterClause[] = [{ dim: 'country', op: 'eq', value: 'DE' }];
    expect((await rolled.breakdown(scope(de), 'countries', 10)).map((r) => [r.name, r.value])).toEqual([['DE', 3]]);
    const builtDe = [0, 1, 2, 3].map((d) => ['country:DE', first + d]);
    expect(await variants()).toEqual(builtDe);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 3, de)).toEqual([first, first + 1, first + 2, first + 3]);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 3)).toEqual([]);
    // Two clauses, or another operator: no rollup keeps those rows, so none is built.
    for (const filters of [[...de, { dim: 'browser', op: 'eq', value: 'Chrome' }], [{ dim: 'country', op: 'neq', value: 'DE' }]] as FilterClause[][]) {
      expect(await rolled.breakdown(scope(filters), 'countries', 10)).toEqual(await rows.breakdown(scope(filters), 'countries', 10));
    }
    expect(await variants()).toEqual(builtDe);
    await rolled.breakdown(scope([]), 'countries', 10);
    expect((await variants()).filter(([variant]) => variant === '')).toHaveLength(4);
    // A late row on day 2 forgets days 1..3 of the site's own rollups and of every variant.
    await events.saveEvents([day(2, 'f', 'FR')]);
    expect(await variants()).toEqual([['', first], ['country:DE', first]]);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 3, de)).toEqual([first]);
    expect((await rolled.breakdown(scope(de), 'countries', 10)).map((r) => [r.name, r.value])).toEqual([['DE', 3]]);
  });

  it(`keep the variants of a site's last ${MAX_VARIANTS} filters built, the least recently built dropped first`, async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const first = T0 / DAY;
    await events.saveEvents([0, 1, 2, 3].map((d) => row(site, 0, { ts: T0 + d * DAY + 3_600_000, visitor: `a-${d}`, path: '/0' })));
    const page = (n: number): FilterClause[] => [{ dim: 'page', op: 'eq', value: `/${n}` }];
    const read = (n: number) => rolled.breakdown({ site, registration: REGISTRATION, from: T0, to: T0 + 4 * DAY, filters: page(n) }, 'pages', 10);
    for (let n = 0; n < MAX_VARIANTS; n++) await read(n);
    // A late row on day 3 makes days 2 and 3 stale; page 0's read builds them again, so page 1 is now the least recently built.
    await events.saveEvents([row(site, 0, { ts: T0 + 3 * DAY + 7_200_000, visitor: 'b-3', path: '/0' })]);
    expect((await read(0)).map((r) => [r.name, r.value])).toEqual([['/0', 5]]);
    await read(MAX_VARIANTS);
    const kept = (await events.query<{ variant: string }>(`SELECT DISTINCT variant FROM ${ROLLUP_DAYS} WHERE site = $site`, { site })).map((r) => r.variant).sort();
    const expected = [0, ...Array.from({ length: MAX_VARIANTS - 1 }, (_, i) => i + 2)].map((n) => `page:${encodeURIComponent(`/${n}`)}`).sort();
    expect(kept).toEqual(expected);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 3, page(1))).toEqual([]);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 3, page(2))).toEqual([first, first + 1]);
    expect(await events.builtRollupDays(site, REGISTRATION, first, first + 3, page(MAX_VARIANTS))).toEqual([first, first + 1, first + 2, first + 3]);
  });

  it('count goal stats, funnels and metadata in rollups of their own subject, built on the first read and read after, forgotten by a batch as the rest, one per `dim:value` clause, and none under other filters', async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    const first = T0 / DAY;
    const at = (d: number, hour: number, visitor: string, over: Parameters<typeof row>[2]) => row(site, 0, { ts: T0 + d * DAY + hour * 3_600_000, visitor: `${visitor}-${d}`, ...over });
    const page = (d: number, hour: number, visitor: string, path: string) => at(d, hour, visitor, { path });
    const buy = (d: number, hour: number, visitor: string, plan: string) => at(d, hour, visitor, { kind: 'event', event: 'buy', metadata: JSON.stringify({ plan }) });
    await events.saveEvents([page(0, 1, 'a', '/'), page(0, 2, 'a', '/pricing'), buy(0, 3, 'a', 'pro'), page(1, 1, 'b', '/pricing'), page(2, 1, 'c', '/'), buy(2, 2, 'c', 'free'), page(3, 1, 'd', '/')]);
    const sent: string[] = [];
    const recording = new DuckDbReportStore({ query: (sql: string, params?: Record<string, unknown>) => (sent.push(sql), events.query(sql, params as never)) } as never, events);
    const scope: ReportScope = { site, registration: REGISTRATION, from: T0, to: T0 + 4 * DAY, filters: [] };
    const goals: GoalMatch[] = [{ type: 'page', match: '/pricing' }, { type: 'event', match: 'buy' }];
    const steps: GoalMatch[] = [{ type: 'page', match: '/' }, { type: 'event', match: 'buy' }];
    const built = (variant: string) => events.builtRollupDays(site, REGISTRATION, first, first + 3, [], variant);
    const subjects = (clause: string) => [subjectVariant('goals', [[['page', '/pricing'], ['event', 'buy']], clause]), subjectVariant('funnel', [[['page', '/'], ['event', 'buy']], clause]), subjectVariant('metadata', [['buy', 'plan'], clause])];
    const [goalsVariant, funnelVariant, plansVariant] = subjects('') as [string, string, string];
    const answers = async (store: DuckDbReportStore, over = scope) => [await store.goalStats(over, goals), await store.funnel(over, steps), await store.eventMetadata(over, 'buy', 'plan', 10)];
    expect(await answers(recording)).toEqual([
      { visitors: 4, goals: [{ conversions: 2, visitors: 2 }, { conversions: 2, visitors: 2 }] },
      [3, 2],
      [{ name: 'free', value: 1, visitors: 1 }, { name: 'pro', value: 1, visitors: 1 }],
    ]);
    for (const variant of [goalsVariant, funnelVariant, plansVariant]) expect(await built(variant)).toEqual([first, first + 1, first + 2, first + 3]);
    // Read again, each is summed from its rollups alone: no statement reads the rows.
    sent.length = 0;
    expect(await answers(recording)).toEqual(await answers(rows));
    expect(sent).toHaveLength(3);
    for (const text of sent) expect(text).not.toMatch(/FROM events_/);
    // A late buy on day 1 forgets days 0..2 of every subject; the next read builds them again and counts it.
    await events.saveEvents([buy(1, 2, 'b', 'pro')]);
    expect(await built(goalsVariant)).toEqual([first + 3]);
    expect(await answers(recording)).toEqual(await answers(rows));
    expect((await recording.goalStats(scope, goals)).goals[1]).toEqual({ conversions: 3, visitors: 3 });
    // Under a filter no variant answers the rows answer, and no subject of it is built.
    const filtered: ReportScope = { ...scope, filters: [{ dim: 'page', op: 'neq', value: '/' }] };
    expect(await answers(recording, filtered)).toEqual(await answers(rows, filtered));
    // One dim:value clause has subjects of its own.
    const one: ReportScope = { ...scope, filters: [{ dim: 'page', op: 'eq', value: '/' }] };
    expect(await answers(recording, one)).toEqual(await answers(rows, one));
    const stored = await events.query<{ variant: string }>(`SELECT DISTINCT variant FROM ${ROLLUP_DAYS} WHERE site = $site AND starts_with(variant, '#')`, { site });
    expect(stored.map((r) => r.variant).sort()).toEqual([...subjects(''), ...subjects('page:%2F')].sort());
  });

  it(`keep a site's last ${MAX_SUBJECTS} subjects built apart from its filters' variants, the least recently built dropped first`, async () => {
    const site = `rollup-${randomUUID().slice(0, 8)}.example`;
    await events.saveEvents([0, 1].map((d) => row(site, 0, { ts: T0 + d * DAY + 3_600_000, visitor: `a-${d}`, path: '/0' })));
    const scope: ReportScope = { site, registration: REGISTRATION, from: T0, to: T0 + 2 * DAY, filters: [] };
    await rolled.breakdown({ ...scope, filters: [{ dim: 'page', op: 'eq', value: '/0' }] }, 'pages', 10);
    for (let n = 0; n <= MAX_SUBJECTS; n++) await rolled.goalStats(scope, [{ type: 'page', match: `/${n}` }]);
    const kept = (await events.query<{ variant: string }>(`SELECT DISTINCT variant FROM ${ROLLUP_DAYS} WHERE site = $site`, { site })).map((r) => r.variant);
    const goal = (n: number) => subjectVariant('goals', [[['page', `/${n}`]], '']);
    expect(kept.sort()).toEqual(['page:%2F0', ...Array.from({ length: MAX_SUBJECTS }, (_, i) => goal(i + 1))].sort());
  });
});
