/**
 * Route group `reports` (spec part 4 "Reports", sites summary): access first
 * (management key, then site access, then the owner's verification), then
 * query validation, then aggregates from the ReportStore.
 */
import { ApiError, badRequestError } from '#domain/errors.ts';
import { compareSites, isVerified } from '#domain/site.ts';
import { parseBreakdownDim, parseBreakdownLimit, parseReportQuery, parseSummaryLimit } from '#domain/reports/query.ts';
import { parseTimezone } from '#domain/reports/time.ts';
import {
  LIVE_PAGES_WINDOW_SECONDS,
  LIVE_WINDOW_SECONDS,
  RETENTION_DURATIONS,
  RETENTION_SCROLLS,
  forecastOf,
  planOverview,
  planSummaryDays,
  share,
  totalsOf,
  zeroFilledSeries,
} from '#domain/reports/overview.ts';
import type { ReportScope } from '#ports/report-store.ts';
import type { SiteRecord } from '#ports/registry.ts';
import { createGroupHandler, json, type ApiRequest, type ApiResponse } from '../api.ts';
import { readableSite, requirePrincipal, requireVerifiedForOwner } from '../auth.ts';

const nowSeconds = (req: ApiRequest) => Math.floor(req.services.clock.now().getTime() / 1000);

/** Public stats may be edge-cached for other readers; the owner's reads bypass the cache. */
function statsResponse(body: unknown, owner: boolean): ApiResponse {
  return json(200, body, owner ? {} : { 'Cache-Control': 'public, max-age=60' });
}

/** Access before validation: 401/403 for keys, 404 for inaccessible sites, 403 for the owner of an unverified site. */
async function accessibleSite(req: ApiRequest): Promise<{ site: SiteRecord; owner: boolean }> {
  const access = await readableSite(req, req.params.hostname ?? '');
  if (access.owner) requireVerifiedForOwner(access.site);
  return access;
}

function reportQuery(req: ApiRequest) {
  const parsed = parseReportQuery(req.query, nowSeconds(req));
  if (!parsed.ok) throw badRequestError(parsed.error);
  return parsed;
}

const scopeOf = (site: string, range: { from: number; to: number }, filters: ReportScope['filters']): ReportScope => ({
  site,
  from: range.from * 1000,
  to: range.to * 1000,
  filters,
});

async function overview(req: ApiRequest) {
  const { site, owner } = await accessibleSite(req);
  const { range, tz, filters } = reportQuery(req);
  const plan = planOverview(range, tz);
  const store = req.services.reports;
  const now = nowSeconds(req);
  const [series, totals, previous, live] = await Promise.all([
    store.traffic({ sites: [site.hostname], boundaries: plan.boundaries, filters }),
    store.traffic({ sites: [site.hostname], boundaries: [range.from * 1000, range.to * 1000], filters }),
    store.traffic({ sites: [site.hostname], boundaries: [plan.previous.from * 1000, plan.previous.to * 1000], filters }),
    store.liveVisitors([site.hostname], (now - LIVE_WINDOW_SECONDS) * 1000),
  ]);
  const items = zeroFilledSeries(plan, series);
  return statsResponse(
    {
      totals: totalsOf(totals[0]),
      previous: totalsOf(previous[0]),
      series: items,
      forecast: forecastOf(plan, items, tz, now),
      live: live.get(site.hostname) ?? 0,
      granularity: plan.granularity,
      previous_range: plan.previous,
    },
    owner,
  );
}

async function overviewSummary(req: ApiRequest) {
  const { site, owner } = await accessibleSite(req);
  const { range, tz, filters } = reportQuery(req);
  const limit = parseSummaryLimit(req.query.limit);
  const previous = planOverview(range, tz).previous;
  const scope = scopeOf(site.hostname, range, filters);
  const store = req.services.reports;
  const since = (nowSeconds(req) - LIVE_PAGES_WINDOW_SECONDS) * 1000;
  const [totals, before, top, devices, browsers, os, livePages] = await Promise.all([
    store.eventTotals(scope),
    store.eventTotals(scopeOf(site.hostname, previous, filters)),
    store.breakdown(scope, 'events', limit),
    store.breakdown(scope, 'devices', limit),
    store.breakdown(scope, 'browsers', limit),
    store.breakdown(scope, 'os', limit),
    store.livePages({ site: site.hostname, filters, since }, limit),
  ]);
  const list = (rows: typeof top) => rows.map(({ name, value, visitors }) => ({ name, value, visitors }));
  return statsResponse(
    {
      events: { totals, previous: before, top: list(top) },
      tech: { devices: list(devices), browsers: list(browsers), os: list(os) },
      live: { pages: livePages },
    },
    owner,
  );
}

async function breakdown(req: ApiRequest) {
  const { site, owner } = await accessibleSite(req);
  const { range, filters } = reportQuery(req);
  const dim = parseBreakdownDim(req.query.dim);
  if (!dim) throw badRequestError('unknown dimension');
  const rows = await req.services.reports.breakdown(scopeOf(site.hostname, range, filters), dim, parseBreakdownLimit(req.query.limit));
  return statsResponse(
    { rows: rows.map((r) => (r.last_seen === undefined ? r : { ...r, last_seen: new Date(r.last_seen).toISOString() })) },
    owner,
  );
}

async function retention(req: ApiRequest) {
  const { site, owner } = await accessibleSite(req);
  const { range, filters } = reportQuery(req);
  const e = await req.services.reports.engagement(scopeOf(site.hostname, range, filters), RETENTION_DURATIONS, RETENTION_SCROLLS);
  return statsResponse(
    {
      duration: RETENTION_DURATIONS.map((s) => ({ s, share: share(e.durationAtLeast[s] ?? 0, e.measured) })),
      scroll: RETENTION_SCROLLS.map((pct) => ({ pct, share: share(e.scrollAtLeast[pct] ?? 0, e.scrollMeasured) })),
      pageviews_measured: e.measured,
    },
    owner,
  );
}

/** Verified websites and every API site; website traffic only for verified sites. */
async function sitesSummary(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'read');
  const tz = parseTimezone(req.query.tz);
  if (!tz) throw new ApiError(400, 'invalid timezone');
  const listed = (await req.services.registry.listSites(principal.uid)).filter((s) => isVerified(s) || s.kind === 'api').sort(compareSites);
  const withTraffic = listed.filter(isVerified).map((s) => s.hostname);
  const now = nowSeconds(req);
  const plan = planSummaryDays(now, tz);
  const store = req.services.reports;
  const [rows, live] = withTraffic.length
    ? await Promise.all([
        store.traffic({ sites: withTraffic, boundaries: plan.boundaries, filters: [] }),
        store.liveVisitors(withTraffic, (now - LIVE_WINDOW_SECONDS) * 1000),
      ])
    : [[], new Map<string, number>()];
  const days = new Map<string, { day: string; pageviews: number; visitors: number }[]>();
  for (const r of rows) {
    const list = days.get(r.site) ?? [];
    list.push({ day: plan.days[r.bucket] as string, pageviews: r.pageviews, visitors: r.visitors });
    days.set(r.site, list);
  }
  return json(200, {
    sites: listed.map((s) => ({
      hostname: s.hostname,
      pinned_at: s.pinned_at,
      live: live.get(s.hostname) ?? 0,
      days: days.get(s.hostname) ?? [],
      // API request metrics arrive with API analytics; until then there are none to roll up.
      ...(s.kind === 'api' ? { api_days: [] } : {}),
    })),
  });
}

export const handler = createGroupHandler({
  'GET /api/sites/{hostname}/overview': overview,
  'GET /api/sites/{hostname}/overview/summary': overviewSummary,
  'GET /api/sites/{hostname}/breakdown': breakdown,
  'GET /api/sites/{hostname}/retention': retention,
  'GET /api/sites/summary': sitesSummary,
});
