/**
 * Properties of goals and funnels over random datasets (issue 37), against
 * the stores that keep them: the stores' answers equal a reference written
 * here from the definitions (each step the earliest hit after the step before's, distinct
 * visitor-days), funnel step counts never increase along the steps, and a
 * goal's visitors never exceed the range's visitor-days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import type { EventRow } from '#domain/rows/event-row.ts';
import { pathMatches } from '#domain/goals/goal.ts';
import type { GoalMatch } from '#ports/goals.ts';
import { REGISTRATION, row } from './report-store.contract.ts';
import { titleOf, type ReportAdapter, type StoreUnderTest } from './report-stores.ts';

const T0 = Date.UTC(2024, 2, 25);
const PATHS = ['/', '/a', '/a/b', '/pricing', '/x_y', '/xzy'];
const EVENTS = ['signup', 'buy'];

const arbRow = fc.record({
  // Whole hours as often as not: many hits share a millisecond, which does not order them.
  offset: fc.oneof(fc.integer({ min: 0, max: 2 * 86_400_000 }), fc.integer({ min: 0, max: 47 }).map((h) => h * 3_600_000)),
  kind: fc.constantFrom('pageview', 'pageview', 'event'),
  visitor: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null, freq: 6 }),
  path: fc.constantFrom(...PATHS),
  event: fc.constantFrom(...EVENTS),
  bot: fc.boolean(),
});

const arbStep: fc.Arbitrary<GoalMatch> = fc.oneof(
  fc.record({ type: fc.constant('page' as const), match: fc.constantFrom('/', '/a*', '*b', '/x_y', '*', '/pricing') }),
  fc.record({ type: fc.constant('event' as const), match: fc.constantFrom(...EVENTS) }),
);

const matches = (step: GoalMatch, r: EventRow) => (step.type === 'event' ? r.kind === 'event' && r.event === step.match : r.kind === 'pageview' && pathMatches(step.match, r.path ?? ''));

/** The definitions, in JS: human rows, visitor-days by hash, the greedy ordered walk. */
function reference(rows: readonly EventRow[], goals: readonly GoalMatch[], steps: readonly GoalMatch[]) {
  const human = rows.filter((r) => !r.bot);
  const days = new Set(human.filter((r) => r.visitor !== null).map((r) => r.visitor));
  const perGoal = goals.map((g) => {
    const hits = human.filter((r) => matches(g, r));
    return { conversions: hits.length, visitors: new Set(hits.filter((r) => r.visitor !== null).map((r) => r.visitor)).size };
  });
  const reached = new Array<number>(steps.length).fill(0);
  for (const day of days) {
    const hits = human.filter((r) => r.visitor === day);
    // Each step: the earliest hit strictly after the step before's.
    let at = -Infinity;
    for (let i = 0; i < steps.length; i++) {
      const next = Math.min(...hits.filter((r) => r.ts > at && matches(steps[i] as GoalMatch, r)).map((r) => r.ts));
      if (next === Infinity) break;
      at = next;
      reached[i] = (reached[i] as number) + 1;
    }
  }
  return { visitors: days.size, perGoal, reached };
}

export function describeConversionProperties(stores: readonly StoreUnderTest[]): void {
  for (const store of stores) {
    const skip = store.skip ?? store.skipProperties;
    describe.skipIf(skip !== null)(titleOf('goal and funnel properties', store, skip), () => {
      let a: ReportAdapter;
      beforeAll(async () => {
        a = await store.open();
      });
      afterAll(() => a.close());

      it('answers as the definitions: funnel steps never increase, goal visitors never exceed the visitor-days', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(arbRow, { maxLength: 60 }), fc.array(arbStep, { minLength: 1, maxLength: 4 }), fc.array(arbStep, { minLength: 2, maxLength: 6 }), async (spec, goals, steps) => {
            const site = `conv-${randomUUID().slice(0, 8)}.example`;
            const rows = spec.map((r) =>
              row(site, (T0 + r.offset) / 1000, {
                kind: r.kind as 'pageview',
                // Hashes rotate with the UTC day, as the collector makes them.
                visitor: r.visitor === null ? null : `v${r.visitor}-${Math.floor((T0 + r.offset) / 86_400_000)}`,
                path: r.path,
                event: r.kind === 'event' ? r.event : null,
                bot: r.bot,
              }),
            );
            await a.events.saveEvents(rows);
            const scope = { site, registration: REGISTRATION, from: T0, to: T0 + 3 * 86_400_000, filters: [] };
            const [stats, reached] = await Promise.all([a.reports.goalStats(scope, goals), a.reports.funnel(scope, steps)]);
            const expected = reference(rows, goals, steps);
            expect(stats).toEqual({ visitors: expected.visitors, goals: expected.perGoal });
            expect(reached).toEqual(expected.reached);
            for (let i = 1; i < reached.length; i++) expect(reached[i]).toBeLessThanOrEqual(reached[i - 1] as number);
            for (const g of stats.goals) expect(g.visitors).toBeLessThanOrEqual(stats.visitors);
          }),
          { numRuns: Math.ceil(40 * (store.propertyShare ?? 1)), seed: 37 },
        );
      }, 300_000);
    });
  }
}
