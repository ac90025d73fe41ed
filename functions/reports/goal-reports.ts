/**
 * Goal stats, funnel stats and event metadata (issue 37), composed from the
 * ReportStore's aggregates (reports/sql/conversions.ts). Rates are fractions
 * 0..1 rounded to four places, as every share the reports answer.
 */
import { share } from '#domain/reports/overview.ts';
import { previousRange } from '#domain/reports/time.ts';
import type { FunnelRecord, GoalRecord } from '#ports/goals.ts';
import type { ReportStore } from '#ports/report-store.ts';
import { scopeOf, type ReportRequest } from './reports.ts';


/**
 * Per goal its conversions, converted visitor-days and conversion rate (converted ÷ the range's
 * visitor-days), for the range and its previous period (same clock times, as the overview's).
 */
export async function getGoalStats(store: ReportStore, q: ReportRequest, goals: readonly GoalRecord[]) {
  const previous = previousRange(q.range, q.tz);
  const [now, before] = await Promise.all([store.goalStats(scopeOf(q, q.range, q.filters), goals), store.goalStats(scopeOf(q, previous, q.filters), goals)]);
  const rows = (stats: typeof now) =>
    goals.map((g, i) => {
      const counts = stats.goals[i] ?? { conversions: 0, visitors: 0 };
      return { id: g.id, name: g.name, type: g.type, match: g.match, conversions: counts.conversions, visitors: counts.visitors, conversion_rate: share(counts.visitors, stats.visitors) };
    });
  return { goals: rows(now), previous: rows(before), visitors: now.visitors, previous_visitors: before.visitors, previous_range: previous };
}

/**
 * Per step the visitor-days that reached it in order, how many of the step before did not
 * (`dropoff`; the first step's is 0) and the share of the first step's that reached it.
 */
export async function getFunnelStats(store: ReportStore, q: ReportRequest, funnel: FunnelRecord) {
  const scope = scopeOf(q, q.range, q.filters);
  const [reached, { visitors }] = await Promise.all([store.funnel(scope, funnel.steps), store.goalStats(scope, [])]);
  const entered = reached[0] ?? 0;
  return {
    id: funnel.id,
    name: funnel.name,
    visitors,
    steps: funnel.steps.map((step, i) => {
      const n = reached[i] ?? 0;
      return { type: step.type, match: step.match, visitors: n, dropoff: i === 0 ? 0 : (reached[i - 1] ?? 0) - n, conversion_rate: share(n, entered) };
    }),
  };
}

type MetadataRequest = Omit<ReportRequest, 'now'>;

/** One event's metadata keys, with the events and visitors that carry each. */
export async function getMetadataKeys(store: ReportStore, q: MetadataRequest, event: string, limit: number) {
  const rows = await store.eventMetadata(scopeOf(q, q.range, q.filters), event, null, limit);
  return { event, keys: rows.map((r) => ({ key: r.name, count: r.value, visitors: r.visitors })) };
}

/** One metadata key's top values for one event, with their events and visitors. */
export async function getMetadataValues(store: ReportStore, q: MetadataRequest, event: string, key: string, limit: number) {
  const rows = await store.eventMetadata(scopeOf(q, q.range, q.filters), event, key, limit);
  return { event, key, values: rows.map((r) => ({ value: r.name, count: r.value, visitors: r.visitors })) };
}
