/**
 * The ClickHouse daily rollups (adapters/clickhouse/rollups.ts) change no
 * answer: over random rows written in batches between reads (so builds made
 * by one read must be marked stale by the next batch that touches their
 * days), every breakdown, the tech lists and the event totals equal the
 * answers read from the rows alone, for ranges with partial days at either
 * end; and a stale mark, a race with a batch and a redelivery each leave the
 * answers exact. Runs on ClickHouse's engine in-process (chDB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseQueryRunner, ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import { getOverviewSummary } from '#reports/reports.ts';
import { storedRow, VARIANT_DAYS } from '#adapters/clickhouse/schema.ts';
import type { ClickHouseExecutor } from '#adapters/clickhouse/executor.ts';
import type { ReportScope } from '#ports/report-store.ts';
import { closeChdb, chdbExecutor } from '../support/chdb-executor.ts';
import { REGISTRATION, row } from './report-store.contract.ts';
import { DAY, filteredCountsExample, filteredCountsPairs, rolledEqualsRows, summaryExample, T0 } from './rollup-rows.ts';
import { log } from '#platform/log.ts';
import { subjectVariant } from '#reports/plan.ts';
import type { GoalMatch } from '#ports/goals.ts';

let events: ClickHouseEventStore;
let rolled: ClickHouseReportStore;
let rows: ClickHouseReportStore;
beforeAll(async () => {
  events = await ClickHouseEventStore.open(chdbExecutor(), `rollups_${randomUUID().replaceAll('-', '')}`, log);
  rolled = new ClickHouseReportStore(events);
  rows = new ClickHouseReportStore(events, { rollups: false });
});
afterAll(async () => {
  await events.close();
  closeChdb();
});

const newSite = () => `rollup-${randomUUID().slice(0, 8)}.example`;
const scopeOf = (site: string, from: number, to: number): ReportScope => ({ site, registration: REGISTRATION, from, to, filters: [] });
/** A pageview of `site` on day `d` (from T0) at `hour`, its visitor hash that day's. */
const pageview = (site: string, d: number, hour: number, visitor: string, path: string) =>
  row(site, 0, { ts: T0 + d * DAY + hour * 3_600_000, visitor: `${visitor}-${d}`, path });
/** A report store over the events whose executor keeps the text of each query it sends in `sent`. */
function recordingStore(): { store: ClickHouseReportStore; sent: string[] } {
  const sent: string[] = [];
  const recording: ClickHouseExecutor = {
    ...events.executor,
    query: <T,>(sql: string, params?: Record<string, unknown>) => {
      sent.push(sql);
      return events.executor.query<T>(sql, params);
    },
  };
  return { store: new ClickHouseReportStore(ClickHouseEventStore.attach(recording, events.database, log)), sent };
}
const builtDays = async (site: string) => (await events.rollups.usable(site, REGISTRATION)).map((u) => u.day - T0 / DAY);

/**
 * Seeded cases per rollup property on ClickHouse (DuckDB runs 6): in-process chDB costs several
 * times DuckDB per case, and these two properties were the longest part of CI.
 */
const CLICKHOUSE_RUNS = 2;
/** A time limit only against a hang: how long a run takes depends on the machine's other work. */
const PROPERTY_TIMEOUT_MS = 600_000;

describe('ClickHouse daily rollups', () => {
  it('give every unfiltered breakdown, tech list, event total, summary list, retention and overview traffic (in zones of whole, half and quarter hours) the rows give, across batches written between reads', async () => {
    await rolledEqualsRows(events, rolled, rows, newSite, CLICKHOUSE_RUNS);
  }, PROPERTY_TIMEOUT_MS);

  it('give filtered retention, overview traffic (one dim:value clause, or any clauses), summary lists and the pages, sources and events breakdowns the rows give, across batches written between reads', async () => {
    await rolledEqualsRows(events, rolled, rows, newSite, CLICKHOUSE_RUNS, { plain: new SqlReportStore(new ClickHouseQueryRunner(events)) });
  }, PROPERTY_TIMEOUT_MS);

  it('reads a day a later batch marked stale from its rows, and builds it again', async () => {
    const site = newSite();
    await events.saveEvents([pageview(site, 0, 1, 'a', '/x'), pageview(site, 1, 2, 'a', '/x'), pageview(site, 2, 3, 'b', '/y')]);
    const scope = scopeOf(site, T0, T0 + 3 * DAY);
    await rolled.breakdown(scope, 'pages', 10);
    expect(await builtDays(site)).toEqual([0, 1, 2]);
    // A late batch lands in day 1 (an import, a redelivery): days 1 and 2 are stale, day 0 is not.
    await events.saveEvents([pageview(site, 1, 5, 'c', '/y')]);
    expect(await builtDays(site)).toEqual([0]);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value, r.visitors])).toEqual([
      ['/x', 2, 2],
      ['/y', 2, 2],
    ]);
    expect(await builtDays(site)).toEqual([0, 1, 2]);
  });

  it('marks stale the days of rows a bulk load stored by SQL, once they are listed: a build made before reads them anew', async () => {
    const site = newSite();
    await events.saveEvents([pageview(site, 0, 1, 'a', '/x')]);
    const scope = scopeOf(site, T0, T0 + DAY);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value])).toEqual([['/x', 1]]);
    expect(await builtDays(site)).toEqual([0]);
    await events.executor.insert(`${events.database}.events`, [storedRow(pageview(site, 0, 2, 'b', '/x'))]);
    await events.listStoredIn(T0, T0 + DAY);
    expect(await builtDays(site)).toEqual([]);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value])).toEqual([['/x', 2]]);
  });

  it('marks the next day stale too: a late row can make a stored row of the next day a copy', async () => {
    const site = newSite();
    const later = row(site, 0, { id: 'page-1', ts: T0 + DAY + 3_600_000, visitor: 'a-1', path: '/x' });
    await events.saveEvents([later, pageview(site, 2, 1, 'b', '/x')]);
    const scope = scopeOf(site, T0, T0 + 3 * DAY);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => r.value)).toEqual([2]);
    // The same id two hours earlier, on the day before: the stored row of day 1 is now its copy.
    await events.saveEvents([row(site, 0, { id: 'page-1', ts: T0 + DAY - 3_600_000, visitor: 'a-0', path: '/y' })]);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value])).toEqual([
      ['/x', 1],
      ['/y', 1],
    ]);
    expect(await rolled.breakdown(scope, 'pages', 10)).toEqual(await rows.breakdown(scope, 'pages', 10));
  });

  it("reads a day's pages again when an append of the next day lands: its page's engagement changed", async () => {
    const site = newSite();
    const page = row(site, 0, { id: 'page-1', ts: T0 + DAY + 23 * 3_600_000, visitor: 'a-1', duration: null, scrolled: null });
    await events.saveEvents([page, pageview(site, 0, 1, 'b', '/x')]);
    const scope = scopeOf(site, T0, T0 + 3 * DAY);
    expect((await rolled.engagement(scope, [10], [50])).measured).toBe(0);
    await events.saveEvents([row(site, 0, { kind: 'append', id: 'append-1', original_id: 'page-1', ts: T0 + 2 * DAY + 1_800_000, duration: 20, scrolled: 60 })]);
    const engagement = await rolled.engagement(scope, [10], [50]);
    expect([engagement.measured, engagement.durationAtLeast[10], engagement.scrollAtLeast[50]]).toEqual([1, 1, 1]);
    expect(engagement).toEqual(await rows.engagement(scope, [10], [50]));
  });

  it('reads again when a batch marks a named day stale before the read', async () => {
    const site = newSite();
    await events.saveEvents([pageview(site, 0, 1, 'a', '/x'), pageview(site, 1, 2, 'a', '/x'), pageview(site, 2, 3, 'b', '/y')]);
    const scope = scopeOf(site, T0, T0 + 3 * DAY);
    // The store remembers the builds it looked up: the next read names them without looking again.
    const racing = new ClickHouseReportStore(events);
    await racing.breakdown(scope, 'pages', 10);
    await events.saveEvents([pageview(site, 1, 5, 'c', '/y')]);
    expect((await racing.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value])).toEqual([
      ['/x', 2],
      ['/y', 2],
    ]);
    expect(await racing.eventTotals(scope)).toEqual(await rows.eventTotals(scope));
  });

  it('marks stale again when a batch is redelivered, whose first delivery stored its rows and died before marking', async () => {
    const site = newSite();
    await events.saveEvents([pageview(site, 0, 1, 'a', '/x'), pageview(site, 1, 2, 'b', '/x')]);
    const scope = scopeOf(site, T0, T0 + 2 * DAY);
    await rolled.breakdown(scope, 'pages', 10);
    const late = pageview(site, 1, 5, 'c', '/y');
    // The first delivery: its rows are in, its mark is not.
    await (events.executor as ClickHouseExecutor).insert(`${events.database}.events`, [storedRow(late)]);
    await events.saveEvents([late]);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => [r.name, r.value])).toEqual([
      ['/x', 2],
      ['/y', 1],
    ]);
  });

  it('reads a day plain, less its listed copies, unless a row of it is stored twice (two deliveries before the table merges them)', async () => {
    const site = newSite();
    const twice = pageview(site, 1, 2, 'b', '/x');
    const copy = { ...twice, ts: twice.ts + 3_600_000 };
    await events.saveEvents([pageview(site, 0, 1, 'a', '/x'), pageview(site, 0, 3, 'a', '/x'), { ...pageview(site, 0, 4, 'a', '/x'), id: 'day-0' }]);
    await events.saveEvents([{ ...pageview(site, 0, 5, 'a', '/x'), id: 'day-0' }, twice, copy]);
    const executor = events.executor as ClickHouseExecutor;
    // Held apart as they are until the table merges them.
    await executor.command(`SYSTEM STOP MERGES ${events.database}.events`);
    await executor.insert(`${events.database}.events`, [storedRow(twice)]);
    // A filter no variant answers: the site's own builds name the days, and their rows are read.
    const scope: ReportScope = { ...scopeOf(site, T0, T0 + 2 * DAY), filters: [{ dim: 'page', op: 'neq', value: '/y' }] };
    const answer = await rolled.breakdown(scope, 'pages', 10).finally(() => executor.command(`SYSTEM START MERGES ${events.database}.events`));
    expect((await events.rollups.usable(site, REGISTRATION)).map((u) => [u.day - T0 / DAY, u.plain])).toEqual([
      [0, true],
      [1, false],
    ]);
    // Day 0 keeps three of its four (one a copy); day 1 one of its three (one stored twice, one a copy).
    expect(answer.map((r) => [r.name, r.value, r.visitors])).toEqual([['/x', 4, 2]]);
    expect(answer).toEqual(await rows.breakdown(scope, 'pages', 10));
  });

  it('count a filtered visitor from its first pageview the filter keeps, over whole, partial and unsealed days', async () => {
    const site = `chroll-${randomUUID().slice(0, 8)}.example`;
    await events.saveEvents(filteredCountsExample(site).rows);
    for (const [answer, expected] of await filteredCountsPairs(rolled, rows, site)) expect(answer).toEqual(expected);
    // Read when the day after T0 was yesterday: its rows answer.
    const dayAfter = new ClickHouseReportStore(events, { now: () => T0 + 2 * DAY + 3_600_000 });
    for (const [answer, expected] of await filteredCountsPairs(dayAfter, rows, site)) expect(answer).toEqual(expected);
  });

  it('gives the summary lists in one read: tech lists, events with their newest time, and event totals', async () => {
    const site = newSite();
    const example = summaryExample(site);
    await events.saveEvents(example.rows);
    const scope = scopeOf(site, example.range.from, example.range.to);
    const summary = await rolled.summaryLists(scope, ['browsers'], 10);
    expect(summary).toEqual(example.expected);
    expect(summary).toEqual(await rows.summaryLists(scope, ['browsers'], 10));
  });

  it('answers from the rows when a build fails', async () => {
    const site = newSite();
    await events.saveEvents([pageview(site, 0, 1, 'a', '/x'), pageview(site, 1, 2, 'b', '/y')]);
    const scope = scopeOf(site, T0, T0 + 2 * DAY);
    const build = events.rollups.build;
    events.rollups.build = () => Promise.reject(new Error('disk full'));
    try {
      const failing = new ClickHouseReportStore(events);
      expect(await failing.breakdown(scope, 'pages', 10)).toEqual(await rows.breakdown(scope, 'pages', 10));
      expect((await failing.breakdown(scope, 'pages', 10)).map((r) => r.value)).toEqual([1, 1]);
      expect(await builtDays(site)).toEqual([]);
    } finally {
      events.rollups.build = build;
    }
  });

  it('are built for days before today only, and a batch of today leaves yesterday built', async () => {
    const site = newSite();
    const now = Date.now();
    const today = Math.floor(now / DAY);
    await events.saveEvents([row(site, 0, { ts: now - 3 * DAY, visitor: 'old' }), row(site, 0, { ts: (today - 1) * DAY + 60_000, visitor: 'y' })]);
    const scope = scopeOf(site, now - 5 * DAY, now + 1);
    await rolled.breakdown(scope, 'pages', 10);
    const built = async () => (await events.rollups.usable(site, REGISTRATION)).map((u) => u.day - today);
    // The range's first day, which it only cuts into, is built along with its whole days.
    expect(await built()).toEqual([-5, -4, -3, -2, -1]);
    await events.saveEvents([row(site, 0, { ts: now, visitor: 'new' })]);
    expect(await built()).toEqual([-5, -4, -3, -2, -1]);
    expect((await rolled.breakdown(scope, 'pages', 10)).map((r) => r.value)).toEqual([3]);
  });

  it("are built ahead of any report by a warm-up (an import's end, a day's end): sealed days without a usable build, pages again once sealed for them", async () => {
    const site = newSite();
    const now = Date.now();
    const today = Math.floor(now / DAY);
    const ref = { site, registration: REGISTRATION };
    await events.saveEvents(Array.from({ length: 5 }, (_, d) => row(site, 0, { ts: (today - d) * DAY + 60_000, visitor: `v${d}` })));
    const built = async () => (await events.rollups.usable(site, REGISTRATION)).map((u) => u.day - today);
    expect(await rolled.warmRollups(ref, (today - 4) * DAY, now)).toBe(4);
    expect(await built()).toEqual([-4, -3, -2, -1]);
    // A batch of today leaves yesterday's labels usable; its pages are not sealed yet.
    await events.saveEvents([row(site, 0, { ts: now, visitor: 'new' })]);
    expect(await rolled.warmRollups(ref, (today - 4) * DAY, now)).toBe(0);
    // A late row of day -3 marks it and day -2 stale, and with them day -4's pages (its next day changed): all three are built again.
    await events.saveEvents([row(site, 0, { ts: (today - 3) * DAY + 120_000, visitor: 'late' })]);
    expect(await rolled.warmRollups(ref, (today - 4) * DAY, now)).toBe(3);
    const warmed = await events.rollups.usable(site, REGISTRATION);
    const scope = scopeOf(site, (today - 4) * DAY, today * DAY);
    expect(await rolled.breakdown(scope, 'pages', 10)).toEqual(await rows.breakdown(scope, 'pages', 10));
    // The report built nothing: every build is the warm-up's.
    expect(await events.rollups.usable(site, REGISTRATION)).toEqual(warmed);
  });

  it('are built per dim:value filter the first time a report needs them, none for other filters, and a batch marks every variant of its days stale', async () => {
    const site = newSite();
    const day = (d: number, visitor: string, country: string) => row(site, 0, { ts: T0 + d * DAY + 3_600_000, visitor: `${visitor}-${d}`, country });
    await events.saveEvents([day(0, 'a', 'DE'), day(0, 'b', 'FR'), day(1, 'c', 'DE'), day(2, 'd', 'DE'), day(3, 'e', 'FR')]);
    const variantDays = async (variant: string) => (await events.rollups.usable(site, REGISTRATION, variant)).map((u) => u.day - T0 / DAY);
    const scope = (filters: ReportScope['filters']): ReportScope => ({ ...scopeOf(site, T0, T0 + 4 * DAY), filters });
    const de: ReportScope['filters'] = [{ dim: 'country', op: 'eq', value: 'DE' }];
    expect((await rolled.breakdown(scope(de), 'countries', 10)).map((r) => [r.name, r.value])).toEqual([['DE', 3]]);
    expect(await variantDays('country:DE')).toEqual([0, 1, 2, 3]);
    expect(await variantDays('')).toEqual([]);
    // Two clauses, or another operator: the site's own builds name the days, no variant is built.
    for (const filters of [[...de, { dim: 'browser', op: 'eq', value: 'Chrome' }], [{ dim: 'country', op: 'neq', value: 'DE' }]] as ReportScope['filters'][]) {
      expect(await rolled.breakdown(scope(filters), 'countries', 10)).toEqual(await rows.breakdown(scope(filters), 'countries', 10));
    }
    expect(await variantDays('')).toEqual([0, 1, 2, 3]);
    // A late row on day 1 marks days 1 and 2 stale, of the site's own builds and of the variant's.
    await events.saveEvents([day(1, 'f', 'DE')]);
    expect(await variantDays('country:DE')).toEqual([0, 3]);
    expect(await variantDays('')).toEqual([0, 3]);
    expect((await rolled.breakdown(scope(de), 'countries', 10)).map((r) => [r.name, r.value])).toEqual([['DE', 4]]);
    expect(await variantDays('country:DE')).toEqual([0, 1, 2, 3]);
  });

  it('count goal stats, funnels and metadata in builds of their own subject, made on the first read and read after, marked stale by a batch as the rest, one per `dim:value` clause, and none under other filters', async () => {
    const site = newSite();
    const at = (d: number, hour: number, visitor: string, over: Parameters<typeof row>[2]) => row(site, 0, { ts: T0 + d * DAY + hour * 3_600_000, visitor: `${visitor}-${d}`, ...over });
    const page = (d: number, hour: number, visitor: string, path: string) => at(d, hour, visitor, { path });
    const buy = (d: number, hour: number, visitor: string, plan: string) => at(d, hour, visitor, { kind: 'event', event: 'buy', metadata: JSON.stringify({ plan }) });
    await events.saveEvents([page(0, 1, 'a', '/'), page(0, 2, 'a', '/pricing'), buy(0, 3, 'a', 'pro'), page(1, 1, 'b', '/pricing'), page(2, 1, 'c', '/'), buy(2, 2, 'c', 'free'), page(3, 1, 'd', '/')]);
    const { store, sent } = recordingStore();
    const scope = scopeOf(site, T0, T0 + 4 * DAY);
    const goals: GoalMatch[] = [{ type: 'page', match: '/pricing' }, { type: 'event', match: 'buy' }];
    const steps: GoalMatch[] = [{ type: 'page', match: '/' }, { type: 'event', match: 'buy' }];
    const subjects = (clause: string) => [subjectVariant('goals', [[['page', '/pricing'], ['event', 'buy']], clause]), subjectVariant('funnel', [[['page', '/'], ['event', 'buy']], clause]), subjectVariant('metadata', [['buy', 'plan'], clause])];
    const variants = subjects('');
    const variantDays = async (variant: string) => (await events.rollups.usable(site, REGISTRATION, variant)).map((u) => u.day - T0 / DAY);
    const answers = async (reports: ClickHouseReportStore, over = scope) => [await reports.goalStats(over, goals), await reports.funnel(over, steps), await reports.eventMetadata(over, 'buy', 'plan', 10)];
    expect(await answers(store)).toEqual([
      { visitors: 4, goals: [{ conversions: 2, visitors: 2 }, { conversions: 2, visitors: 2 }] },
      [3, 2],
      [{ name: 'free', value: 1, visitors: 1 }, { name: 'pro', value: 1, visitors: 1 }],
    ]);
    for (const variant of variants) expect(await variantDays(variant)).toEqual([0, 1, 2, 3]);
    // Read again, each is summed from its builds alone: no statement reads the events table.
    sent.length = 0;
    expect(await answers(store)).toEqual(await answers(rows));
    const rolledReads = sent.splice(0).filter((text) => text.includes(events.rollups.tables.labels));
    expect(rolledReads.length).toBeGreaterThan(0);
    for (const text of rolledReads) expect(text).not.toContain(events.table);
    // A late buy on day 1 marks days 1 and 2 stale; the next read builds them again and counts it.
    await events.saveEvents([buy(1, 2, 'b', 'pro')]);
    expect(await variantDays(variants[0]!)).toEqual([0, 3]);
    expect(await answers(store)).toEqual(await answers(rows));
    expect((await store.goalStats(scope, goals)).goals[1]).toEqual({ conversions: 3, visitors: 3 });
    expect(await variantDays(variants[0]!)).toEqual([0, 1, 2, 3]);
    // Under a filter no variant answers the rows answer, and no build of another subject is made.
    const filtered: ReportScope = { ...scope, filters: [{ dim: 'page', op: 'neq', value: '/' }] };
    expect(await answers(store, filtered)).toEqual(await answers(rows, filtered));
    // One dim:value clause has subjects of its own.
    const one: ReportScope = { ...scope, filters: [{ dim: 'page', op: 'eq', value: '/' }] };
    expect(await answers(store, one)).toEqual(await answers(rows, one));
    const built = await events.executor.query<{ variant: string }>(
      `SELECT DISTINCT variant FROM ${events.rollups.tables.builds} WHERE site = {site:String} AND startsWith(variant, '#')`,
      { site },
    );
    expect(built.map((r) => r.variant).sort()).toEqual([...variants, ...subjects('page:%2F')].sort());
  });

  it("reads the days a filtered report only cuts into as stored, less the copies the site's own build listed", async () => {
    const site = newSite();
    const de = (ts: number, id: string, visitor: string) => row(site, 0, { ts, id, visitor, country: 'DE', browser: 'Firefox' });
    // Day 0 is cut at noon: its afternoon holds a page and its copy (the same id an hour later).
    await events.saveEvents([de(T0 + 13 * 3_600_000, 'p1', 'a-0'), de(T0 + 14 * 3_600_000, 'p1', 'a-0'), de(T0 + DAY + 3_600_000, 'p2', 'b-1')]);
    const { store, sent } = recordingStore();
    const range = scopeOf(site, T0 + DAY / 2, T0 + 2 * DAY);
    const filtered: ReportScope = { ...range, filters: [{ dim: 'country', op: 'eq', value: 'DE' }] };
    // The site's own builds, remembered from an unfiltered report.
    await store.breakdowns(range, ['browsers'], 10);
    sent.length = 0;
    const lists = await store.breakdowns(filtered, ['browsers'], 10);
    expect(lists.browsers.map((r) => [r.name, r.value, r.visitors])).toEqual([['Firefox', 2, 2]]);
    expect(lists).toEqual(await rows.breakdowns(filtered, ['browsers'], 10));
    expect(sent.join('\n')).toContain(events.rollups.tables.copies);
  });

  it(`read a variant's build for ${VARIANT_DAYS} days after it was made, and drop its rows later; the site's own builds stay`, async () => {
    const site = newSite();
    const executor = events.executor as ClickHouseExecutor;
    // Stored without a stale mark, so only their age tells the builds below apart.
    await executor.insert(`${events.database}.events`, [storedRow(row(site, 0, { ts: T0 + 3_600_000, visitor: 'a-0', country: 'FR' }))]);
    const { builds, labels } = events.rollups.tables;
    const nowMicro = Date.now() * 1000;
    const old = (days: number) => nowMicro - days * DAY * 1000 - 3_600_000_000;
    const day = T0 / DAY;
    // A build of each variant made VARIANT_DAYS days and an hour ago, and their labels older by two days.
    for (const variant of ['', 'country:FR']) {
      await executor.command(`INSERT INTO ${builds} (site, registration, variant, day, built_at, plain) VALUES ({site:String}, {registration:String}, {variant:String}, {day:Int32}, {at:Int64}, false)`, {
        site, registration: REGISTRATION, variant, day, at: old(VARIANT_DAYS),
      });
      await executor.command(`INSERT INTO ${labels} (site, registration, day, built_at, dim, name, value, visitors, last_seen, variant) VALUES ({site:String}, {registration:String}, {day:Int32}, {at:Int64}, 'countries', 'FR', 1, 1, NULL, {variant:String})`, {
        site, registration: REGISTRATION, variant, day, at: old(VARIANT_DAYS + 2),
      });
    }
    expect((await events.rollups.usable(site, REGISTRATION)).map((u) => u.day)).toEqual([day]);
    expect(await events.rollups.usable(site, REGISTRATION, 'country:FR')).toEqual([]);
    await executor.command(`OPTIMIZE TABLE ${labels} FINAL`);
    const kept = await executor.query<{ variant: string }>(`SELECT variant FROM ${labels} WHERE site = {site:String} ORDER BY variant`, { site });
    expect(kept.map((r) => r.variant)).toEqual(['']);
    // The next read under the clause builds the day again.
    const scope: ReportScope = { ...scopeOf(site, T0, T0 + DAY), filters: [{ dim: 'country', op: 'eq', value: 'FR' }] };
    expect((await rolled.breakdown(scope, 'countries', 10)).map((r) => [r.name, r.value])).toEqual([['FR', 1]]);
    expect((await events.rollups.usable(site, REGISTRATION, 'country:FR')).map((u) => u.day)).toEqual([day]);
  });
  it('keeps the answer of the named builds: asked again, only the stale marks are sent; after a later batch marks a named day, the day is read anew', async () => {
    const site = newSite();
    await events.saveEvents([pageview(site, 0, 1, 'a', '/x'), pageview(site, 1, 2, 'a', '/x'), pageview(site, 2, 3, 'b', '/y')].map((r) => ({ ...r, browser: 'Firefox' })));
    const { store, sent } = recordingStore();
    const scope = scopeOf(site, T0, T0 + 3 * DAY);
    const browsers = async () => (await store.breakdowns(scope, ['browsers'], 10)).browsers.map((r) => [r.name, r.value, r.visitors]);
    expect(await browsers()).toEqual([['Firefox', 3, 3]]);
    sent.length = 0;
    expect(await browsers()).toEqual([['Firefox', 3, 3]]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(events.rollups.tables.stale);
    expect(sent[0]).not.toContain(events.rollups.tables.labels);
    // A late batch lands in day 1: the kept answer names its old build, so the day is read again.
    await events.saveEvents([{ ...pageview(site, 1, 5, 'c', '/y'), browser: 'Firefox' }]);
    expect(await browsers()).toEqual([['Firefox', 4, 4]]);
  });

  it("keeps the open part's answer while no batch marks the site: read again, only the stale marks are sent; after a batch, the open day is read anew and kept again once two reads agree", async () => {
    const site = newSite();
    const now = Date.now();
    // Today's rows (the open day), however soon after midnight the test runs.
    const today = Math.max(Math.floor(now / DAY) * DAY, now - 60_000);
    const firefox = (ts: number, visitor: string) => row(site, 0, { ts, visitor, browser: 'Firefox' });
    await events.saveEvents([firefox(now - 2 * DAY, 'a'), firefox(today, 'b')]);
    const { store, sent } = recordingStore();
    const scope = scopeOf(site, now - 3 * DAY, now);
    const browsers = async () => (await store.breakdowns(scope, ['browsers'], 10)).browsers.map((r) => [r.name, r.value]);
    // Read with marks no finished read had seen, the first answer is not kept; the second, read with the same marks, is.
    expect(await browsers()).toEqual([['Firefox', 2]]);
    sent.length = 0;
    expect(await browsers()).toEqual([['Firefox', 2]]);
    expect(sent[0]).toContain(events.table);
    sent.length = 0;
    expect(await browsers()).toEqual([['Firefox', 2]]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(events.rollups.tables.stale);
    expect(sent[0]).not.toContain(events.table);
    await events.saveEvents([firefox(today, 'c')]);
    sent.length = 0;
    expect(await browsers()).toEqual([['Firefox', 3]]);
    // The marks first, then the open day, whose answer is not kept: the next read sends it with the marks, and is kept.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toContain(events.table);
    sent.length = 0;
    expect(await browsers()).toEqual([['Firefox', 3]]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(events.table);
    sent.length = 0;
    expect(await browsers()).toEqual([['Firefox', 3]]);
    expect(sent[0]).not.toContain(events.table);
  });

  it('sends the statements of a report asked for together as one request, each answered in its own order, the stale marks once', async () => {
    const site = newSite();
    const seconds = Math.floor(Date.now() / 1000);
    // Live pages ranked by visitors: /p7 has 8, /p6 7, … /p0 1.
    const live = Array.from({ length: 8 }, (_, p) => Array.from({ length: p + 1 }, (_, v) => row(site, seconds - 60 - v, { visitor: `v${v}`, path: `/p${p}` }))).flat();
    await events.saveEvents(live);
    const { store, sent } = recordingStore();
    const q = { site, registration: REGISTRATION, range: { from: seconds - 7 * 86_400, to: seconds }, tz: 'UTC', filters: [], now: seconds };
    await getOverviewSummary(store, q, 10);
    sent.length = 0;
    const together = await getOverviewSummary(store, q, 10);
    expect(sent).toHaveLength(1);
    // Its two rolled reads (the lists, the previous range's event totals) share one read of the stale marks.
    expect(sent[0]!.split(events.rollups.tables.stale)).toHaveLength(2);
    expect(together.live.pages.map((p) => [p.name, p.visitors])).toEqual(Array.from({ length: 8 }, (_, i) => [`/p${7 - i}`, 8 - i]));
    expect(together.events.totals).toEqual(await store.eventTotals({ site, registration: REGISTRATION, from: q.range.from * 1000, to: q.range.to * 1000, filters: [] }));
    expect(sent).toHaveLength(2);
  });
});
