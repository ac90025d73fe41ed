/**
 * Report responses, composed from ReportStore aggregates and the pure report
 * domain. Shared by the HTTP handlers and the report contract suite, so the
 * numbers the suite asserts are the numbers the API answers.
 */
import {
  LIVE_PAGES_WINDOW_SECONDS,
  LIVE_WINDOW_SECONDS,
  RETENTION_DURATIONS,
  RETENTION_SCROLLS,
  forecastOf,
  planOverview,
  planSummaryDays,
  rangeRow,
  share,
  totalsOf,
  zeroFilledSeries,
} from '#domain/reports/overview.ts';
import { withGoalWindow, type FilterClause } from '#domain/reports/filter.ts';
import type { BreakdownDim } from '#domain/reports/query.ts';
import { previousRange, type Interval, type Range } from '#domain/reports/time.ts';
import type { ReportScope, ReportStore, SiteRef } from '#ports/report-store.ts';
import type { ApiDay, ApiRequestStore } from '#ports/api-request-store.ts';
import { NotAvailableOnStoreError } from '#domain/errors.ts';

/** The site is its hostname and current registration: only that registration's rows are read. */
export interface ReportRequest extends SiteRef {
  range: Range;
  tz: string;
  filters: readonly FilterClause[];
  /** Unix seconds. */
  now: number;
}

/** One read's scope: a goal clause counts conversions within the read's own range (the previous period's in its). */
export const scopeOf = ({ site, registration }: SiteRef, range: Range, filters: readonly FilterClause[]): ReportScope => ({
  site,
  registration,
  from: range.from * 1000,
  to: range.to * 1000,
  filters: withGoalWindow(filters, [{ site, registration }], range.from * 1000, range.to * 1000),
});

/** A traffic read over bucket boundaries (ms), its goal clauses counted within them. */
const trafficOf = (sites: readonly SiteRef[], boundaries: readonly number[], filters: readonly FilterClause[]) => ({
  sites,
  boundaries,
  filters: withGoalWindow(filters, sites, boundaries[0] as number, boundaries[boundaries.length - 1] as number),
});

/** Live visitors under the report's filters (a goal clause counts conversions within the live window). */
function liveUnder(store: ReportStore, sites: readonly SiteRef[], q: ReportRequest) {
  const since = (q.now - LIVE_WINDOW_SECONDS) * 1000;
  return store.liveVisitors(sites, since, withGoalWindow(q.filters, sites, since, q.now * 1000 + 1));
}

/** `interval`: the buckets asked for (week, month…), or null for the range's own (hours up to 48 h, else days). */
export async function getOverview(store: ReportStore, q: ReportRequest, interval: Interval | null = null) {
  const plan = planOverview(q.range, q.tz, interval);
  const sites = [{ site: q.site, registration: q.registration }];
  const [current, previous, live] = await Promise.all([
    store.traffic(trafficOf(sites, plan.boundaries, q.filters)),
    store.traffic(trafficOf(sites, [plan.previous.from * 1000, plan.previous.to * 1000], q.filters)),
    liveUnder(store, sites, q),
  ]);
  const items = zeroFilledSeries(plan, current);
  return {
    totals: totalsOf(rangeRow(current)),
    previous: totalsOf(rangeRow(previous)),
    series: items,
    forecast: forecastOf(plan, items, q.tz, q.now),
    live: live.get(q.site) ?? 0,
    granularity: plan.granularity,
    previous_range: plan.previous,
  };
}

export async function getOverviewSummary(store: ReportStore, q: ReportRequest, limit: number) {
  // Only the comparison period: the overview's bucket plan is not needed here.
  const previous = previousRange(q.range, q.tz);
  const scope = scopeOf(q, q.range, q.filters);
  const since = (q.now - LIVE_PAGES_WINDOW_SECONDS) * 1000;
  const [{ lists, events: top, totals }, before, livePages] = await Promise.all([
    store.summaryLists(scope, ['devices', 'browsers', 'os'] as const, limit),
    store.eventTotals(scopeOf(q, previous, q.filters)),
    store.livePages({ site: q.site, registration: q.registration, filters: withGoalWindow(q.filters, [q], since, q.now * 1000 + 1), since }, limit),
  ]);
  const { devices, browsers, os } = lists;
  const list = (rows: typeof top) => rows.map(({ name, value, visitors }) => ({ name, value, visitors }));
  return {
    events: { totals, previous: before, top: list(top) },
    tech: { devices: list(devices), browsers: list(browsers), os: list(os) },
    live: { pages: livePages },
  };
}

export async function getBreakdown(store: ReportStore, q: Omit<ReportRequest, 'tz' | 'now'>, dim: BreakdownDim, limit: number) {
  const rows = await store.breakdown(scopeOf(q, q.range, q.filters), dim, limit);
  return { rows: rows.map((r) => (r.last_seen === undefined ? r : { ...r, last_seen: new Date(r.last_seen).toISOString() })) };
}

export async function getRetention(store: ReportStore, q: Omit<ReportRequest, 'tz' | 'now'>) {
  const e = await store.engagement(scopeOf(q, q.range, q.filters), RETENTION_DURATIONS, RETENTION_SCROLLS);
  return {
    duration: RETENTION_DURATIONS.map((s) => ({ s, share: share(e.durationAtLeast[s] ?? 0, e.measured) })),
    scroll: RETENTION_SCROLLS.map((pct) => ({ pct, share: share(e.scrollAtLeast[pct] ?? 0, e.scrollMeasured) })),
    pageviews_measured: e.measured,
  };
}

export interface SummarySite {
  hostname: string;
  registration: string;
  pinned_at: string | null;
  kind: 'web' | 'api';
  /** Website traffic is only counted for verified sites. */
  verified: boolean;
}

/**
 * Sparse daily rollups from the rolling cutoff and live counts, in the order given; API sites
 * carry their requests and 5xx per day (`api_days`).
 */
export async function getSitesSummary(
  { reports: store, apiRequests }: { reports: ReportStore; apiRequests: ApiRequestStore },
  sites: readonly SummarySite[],
  tz: string,
  now: number,
) {
  const withTraffic = sites.filter((s) => s.verified).map((s) => ({ site: s.hostname, registration: s.registration }));
  const apiSites = sites.filter((s) => s.kind === 'api').map((s) => ({ site: s.hostname, registration: s.registration }));
  const plan = planSummaryDays(now, tz);
  // A store that keeps no API requests (Timestream, frozen) lists none rather than failing the whole summary.
  const apiDays: Promise<Map<string, ApiDay[]>> = apiSites.length
    ? apiRequests.apiDays(apiSites, plan).catch((e: unknown) => {
        if (e instanceof NotAvailableOnStoreError) return new Map();
        throw e;
      })
    : Promise.resolve(new Map());
  const [rows, live] = withTraffic.length
    ? await Promise.all([
        store.traffic({ sites: withTraffic, boundaries: plan.boundaries, filters: [] }),
        store.liveVisitors(withTraffic, (now - LIVE_WINDOW_SECONDS) * 1000),
      ])
    : [[], new Map<string, number>()];
  const days = new Map<string, { day: string; pageviews: number; visitors: number }[]>();
  // Stores answer buckets in no particular order; days are listed oldest first.
  const ordered = rows.filter((r) => r.bucket !== null).sort((a, b) => (a.bucket as number) - (b.bucket as number));
  for (const r of ordered) {
    const list = days.get(r.site) ?? [];
    list.push({ day: plan.days[r.bucket as number] as string, pageviews: r.pageviews, visitors: r.visitors });
    days.set(r.site, list);
  }
  const requestDays = await apiDays;
  return {
    sites: sites.map((s) => ({
      hostname: s.hostname,
      pinned_at: s.pinned_at,
      live: live.get(s.hostname) ?? 0,
      days: days.get(s.hostname) ?? [],
      ...(s.kind === 'api' ? { api_days: requestDays.get(s.hostname) ?? [] } : {}),
    })),
  };
}
