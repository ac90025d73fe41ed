/**
 * Random rows for the rollup property tests (rollups.test.ts, clickhouse-rollups.test.ts):
 * spread across days with visitor hashes per UTC day, as the collector makes them; copies,
 * bots, appends, events, entries and screens; each row assigned to one of three batches.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { withGoalWindow, type FilterClause } from '#domain/reports/filter.ts';
import { BREAKDOWN_DIMS } from '#domain/reports/query.ts';
import { planOverview, RETENTION_DURATIONS, RETENTION_SCROLLS } from '#domain/reports/overview.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ReportScope, ReportStore } from '#ports/report-store.ts';
import type { GoalMatch } from '#ports/goals.ts';
import { REGISTRATION, row } from './report-store.contract.ts';
import { randomUUID } from 'node:crypto';

export const DAY = 86_400_000;
export const T0 = Date.UTC(2024, 5, 3);
const DAYS = 6;

const arbEvent = fc.record({
  at: fc.integer({ min: 0, max: DAYS * DAY - 1 }),
  kind: fc.constantFrom('pageview', 'pageview', 'pageview', 'event', 'append'),
  visitor: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null, freq: 6 }),
  unique: fc.option(fc.boolean(), { nil: null }),
  path: fc.constantFrom('/', '/a', '/b'),
  referrer: fc.option(fc.constantFrom('google.com', 'news.example', ''), { nil: null }),
  country: fc.option(fc.constantFrom('DE', 'FR'), { nil: null }),
  browser: fc.option(fc.constantFrom('Chrome', 'Firefox'), { nil: null }),
  screen: fc.option(fc.constantFrom(360, 800, 1440, 2560), { nil: null }),
  event: fc.constantFrom('signup', 'buy', ''),
  metadata: fc.option(fc.constantFrom('{"plan":"pro"}', '{"plan":"free","seats":2}', '{"seats":2}', '{"plan":null}', 'not json'), { nil: null }),
  duration: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }),
  scrolled: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
  bot: fc.boolean(),
  copy: fc.boolean(),
  batch: fc.integer({ min: 0, max: 2 }),
});

/**
 * Filters on the columns the rows vary: mostly one `dim:value` clause with a value the rows hold
 * (what a click on a dashboard row sets; '' matches a missing value), else one or two clauses of
 * any operator and value.
 */
export const arbFilters: fc.Arbitrary<FilterClause[]> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(['page', '/a'], ['country', 'DE'], ['country', ''], ['browser', 'Chrome'], ['referrer', 'google.com'], ['referrer', ''])
      .map(([dim, value]) => [{ dim, op: 'eq', value } as FilterClause]),
  },
  {
    weight: 1,
    arbitrary: fc.array(
      fc.record({
        dim: fc.constantFrom('page', 'country', 'browser', 'referrer', 'event'),
        op: fc.constantFrom('eq', 'neq', 'contains'),
        value: fc.constantFrom('/a', 'DE', 'Chrome', 'google.com', 'o', ''),
      }) as fc.Arbitrary<FilterClause>,
      { minLength: 1, maxLength: 2 },
    ),
  },
);

/** Goals and a funnel the property compares: an exact and a wildcard page, an event, and steps across kinds. */
const GOALS: GoalMatch[] = [
  { type: 'page', match: '/a' },
  { type: 'page', match: '/*' },
  { type: 'event', match: 'signup' },
];
const FUNNEL: GoalMatch[] = [
  { type: 'page', match: '/' },
  { type: 'page', match: '/a' },
  { type: 'event', match: 'buy' },
];

/** The breakdowns the filtered property compares: a label of the page, one of the visit, and the events. */
const FILTERED_BREAKDOWNS = ['pages', 'sources', 'events'] as const;

/** Offsets of whole hours, half hours and quarter hours, with and without summer time. */
export const TIME_ZONES = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns'];

export const arbRollupSpec = fc.array(arbEvent, { minLength: 10, maxLength: 70 });
export type RollupSpec = typeof arbRollupSpec extends fc.Arbitrary<infer T> ? T : never;

/** Ranges from a day before the rows to a day after them, at least a day long: partial days at either end. */
export const arbRange = fc
  .record({ from: fc.integer({ min: -DAY, max: DAYS * DAY }), length: fc.integer({ min: DAY, max: DAYS * DAY + DAY }) })
  .map(({ from, length }) => ({ from: T0 + from, to: T0 + from + length }));

/** The spec's rows for `site`, each with its batch (0..2). */
export function rowsOfSpec(site: string, spec: RollupSpec): { batch: number; row: EventRow }[] {
  let lastId = randomUUID();
  let lastPage = lastId;
  return spec.map((r) => {
    const ts = T0 + r.at;
    const id = r.copy ? lastId : randomUUID();
    lastId = id;
    if (r.kind === 'pageview') lastPage = id;
    return {
      batch: r.batch,
      row: row(site, 0, {
        ts,
        id, kind: r.kind as 'pageview', unique: r.unique, path: r.path, referrer_host: r.referrer, country: r.country, browser: r.browser,
        screen_width: r.screen, bot: r.bot, duration: r.duration, scrolled: r.scrolled, event: r.kind === 'event' ? r.event : null, metadata: r.kind === 'event' ? r.metadata : null, original_id: r.kind === 'append' ? lastPage : null,
        visitor: r.visitor === null ? null : `v${r.visitor}-${Math.floor(ts / DAY)}`,
      }),
    };
  });
}

/**
 * The summary-lists example both stores' tests share: a pageview, a named event on a sealed day,
 * and two of it at different times on the partial day that ends the range (read raw); with the
 * answer expected of summaryLists(scope, ['browsers'], 10).
 */
export function summaryExample(site: string) {
  const ev = (ts: number, visitor: string) => row(site, 0, { ts, kind: 'event', event: 'signup', visitor });
  return {
    rows: [row(site, 0, { ts: T0 + 3_600_000, visitor: 'a-0', browser: 'Firefox' }), ev(T0 + 2 * 3_600_000, 'a-0'), ev(T0 + 2 * DAY + 3_600_000, 'b-2'), ev(T0 + 2 * DAY + 5 * 3_600_000, 'c-2')],
    range: { from: T0, to: T0 + 2 * DAY + 12 * 3_600_000 },
    expected: {
      lists: { browsers: [{ name: 'Firefox', value: 1, visitors: 1 }] },
      events: [{ name: 'signup', value: 3, visitors: 3, last_seen: T0 + 2 * DAY + 5 * 3_600_000 }],
      totals: { count: 3, visitors: 3 },
    },
  };
}

/**
 * The filtered-counts example both stores' tests share: on the day after T0, visitor a's first
 * pageview is from FR and its later ones from DE, visitor b's first from DE, and one unhashed
 * pageview from DE counts unique. Under `country:DE`, a's visitor-day starts at 03:00: a count
 * over whole days, a partial day (`partial`) or a day read when it was yesterday must count a
 * from it, not by the writer's first-of-day flag (set on its FR pageview). `whole` covers the three days, whose Asia/Kolkata day boundary (18:30 UTC) splits
 * a's DE pageviews.
 */
export function filteredCountsExample(site: string) {
  const at = (hour: number, over: Partial<EventRow>) => row(site, 0, { ts: T0 + DAY + hour * 3_600_000, ...over });
  return {
    rows: [
      at(1, { visitor: 'a-1', country: 'FR' }),
      at(3, { visitor: 'a-1', country: 'DE' }),
      at(22, { visitor: 'a-1', country: 'DE' }),
      at(5, { visitor: 'b-1', country: 'DE' }),
      at(6, { visitor: 'b-1', country: 'FR' }),
      at(4, { country: 'DE', unique: true }),
    ],
    filters: [{ dim: 'country', op: 'eq', value: 'DE' }] as FilterClause[],
    whole: { from: T0, to: T0 + 3 * DAY },
    partial: { from: T0 + DAY + 2 * 3_600_000, to: T0 + 2 * DAY + 3_600_000 },
  };
}

/** The filtered-counts example's traffic from `rolled` and from `rows`, in UTC and Asia/Kolkata, over both ranges: [answer, expected] pairs. */
export async function filteredCountsPairs(rolled: ReportStore, rows: ReportStore, site: string): Promise<[unknown, unknown][]> {
  const example = filteredCountsExample(site);
  const pairs: [unknown, unknown][] = [];
  for (const range of [example.whole, example.partial]) {
    for (const tz of ['UTC', 'Asia/Kolkata']) {
      const { boundaries } = planOverview({ from: Math.ceil(range.from / 1000), to: Math.floor(range.to / 1000) }, tz);
      const traffic = { sites: [{ site, registration: REGISTRATION }], boundaries, filters: example.filters };
      pairs.push([[tz, range, await rolled.traffic(traffic)], [tz, range, await rows.traffic(traffic)]]);
    }
  }
  return pairs;
}

/**
 * The rollup property both stores' tests run: random rows for a new site, each batch written and
 * followed by reads over two random ranges, every report `rolled` answers equal to what `rows`
 * (the same store reading only rows) answers: unfiltered, every breakdown, the tech lists, the
 * event totals, the summary lists, goal stats, a funnel, an event's metadata keys and values, retention and the overview's traffic in five zones; with
 * `filtered`, retention, the traffic in five zones, three breakdowns, goal stats, the funnel and
 * a key's metadata values under random filters, and
 * the summary lists (read in one statement) as `plain` (the SQL stores' shared statements, one per
 * list) gives them.
 */
export function rolledEqualsRows(
  events: EventStore,
  rolled: ReportStore,
  rows: ReportStore,
  newSite: () => string,
  numRuns: number,
  filtered: { plain: ReportStore } | null = null,
): Promise<void> {
  return fc.assert(
    fc.asyncProperty(arbRollupSpec, fc.array(arbRange, { minLength: 2, maxLength: 2 }), filtered ? arbFilters : fc.constant([]), async (spec, ranges, filters) => {
      const site = newSite();
      const made = rowsOfSpec(site, spec);
      // Each batch is followed by reads over every range, so later batches land in days already rolled up.
      for (let batch = 0; batch <= 2; batch++) {
        await events.saveEvents(made.filter((m) => m.batch === batch).map((m) => m.row));
        for (const range of ranges) {
          // As the reports give them: an event clause finds its visitors within the read's range.
          const scope: ReportScope = { site, registration: REGISTRATION, ...range, filters: withGoalWindow(filters, [{ site, registration: REGISTRATION }], range.from, range.to) };
          if (filtered) {
            expect([filters, await rolled.summaryLists(scope, ['devices', 'browsers', 'os'], 2)]).toEqual([filters, await filtered.plain.summaryLists(scope, ['devices', 'browsers', 'os'], 2)]);
            for (const dim of FILTERED_BREAKDOWNS) expect([dim, filters, await rolled.breakdown(scope, dim, 1000)]).toEqual([dim, filters, await rows.breakdown(scope, dim, 1000)]);
            expect([filters, await rolled.goalStats(scope, GOALS)]).toEqual([filters, await rows.goalStats(scope, GOALS)]);
            expect([filters, await rolled.funnel(scope, FUNNEL)]).toEqual([filters, await rows.funnel(scope, FUNNEL)]);
            expect([filters, await rolled.eventMetadata(scope, 'signup', 'plan', 1)]).toEqual([filters, await rows.eventMetadata(scope, 'signup', 'plan', 1)]);
          } else {
            for (const dim of BREAKDOWN_DIMS) expect([dim, await rolled.breakdown(scope, dim, 1000)]).toEqual([dim, await rows.breakdown(scope, dim, 1000)]);
            expect(await rolled.breakdowns(scope, ['devices', 'browsers', 'os'], 2)).toEqual(await rows.breakdowns(scope, ['devices', 'browsers', 'os'], 2));
            expect(await rolled.eventTotals(scope)).toEqual(await rows.eventTotals(scope));
            expect(await rolled.summaryLists(scope, ['devices', 'browsers', 'os'], 2)).toEqual(await rows.summaryLists(scope, ['devices', 'browsers', 'os'], 2));
            expect(await rolled.goalStats(scope, GOALS)).toEqual(await rows.goalStats(scope, GOALS));
            expect(await rolled.funnel(scope, FUNNEL)).toEqual(await rows.funnel(scope, FUNNEL));
            for (const key of [null, 'plan', 'seats']) expect([key, await rolled.eventMetadata(scope, 'signup', key, 1)]).toEqual([key, await rows.eventMetadata(scope, 'signup', key, 1)]);
          }
          expect([filters, await rolled.engagement(scope, RETENTION_DURATIONS, RETENTION_SCROLLS)]).toEqual([filters, await rows.engagement(scope, RETENTION_DURATIONS, RETENTION_SCROLLS)]);
          for (const tz of TIME_ZONES) {
            const { boundaries } = planOverview({ from: Math.ceil(range.from / 1000), to: Math.floor(range.to / 1000) }, tz);
            const sites = [{ site, registration: REGISTRATION }];
            const traffic = { sites, boundaries, filters: withGoalWindow(filters, sites, boundaries[0]!, boundaries[boundaries.length - 1]!) };
            expect([tz, filters, await rolled.traffic(traffic)]).toEqual([tz, filters, await rows.traffic(traffic)]);
          }
        }
      }
    }),
    { numRuns, seed: 1515 },
  );
}
