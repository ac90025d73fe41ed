/**
 * Route group `reports` (spec part 4 "Reports", sites summary): access first
 * (management key, then site access, then the owner's verification), then
 * query validation, then the report builders.
 */
import { InvalidInputError, UnknownDimensionError } from '#domain/errors.ts';
import { compareSites, isVerified } from '#domain/site.ts';
import { registrationOf } from '#domain/registration.ts';
import { INVALID_TIMEZONE, parseBreakdownDim, parseInterval, parseBreakdownLimit, parseReportQuery, parseSummaryLimit } from '#domain/reports/query.ts';
import { parseTimezone } from '#domain/reports/time.ts';
import type { SiteRecord } from '#ports/registry.ts';
import { getBreakdown, getOverview, getOverviewSummary, getRetention, getSitesSummary, type ReportRequest } from '#reports/reports.ts';
import { getApiBreakdown, getApiOverview, type ApiReportRequest } from '#reports/api-reports.ts';
import { parseApiBreakdownDim, parseApiReportQuery } from '#domain/api-reports/query.ts';
import { createGroupHandler, json, type ApiRequest as AnyApiRequest, type ApiResponse } from '../api.ts';
import { readableSite, requireOwnedSite, requireOwnedSiteRead, requirePrincipal, requireVerifiedForOwner, type AuthServices } from '../auth.ts';
import type { Services } from '#platform/services.ts';
import { normalizeEventName } from '#domain/event-name.ts';
import { getMetadataKeys, getMetadataValues } from '#reports/goal-reports.ts';
import { resolveGoalFilters } from '../goal-filters.ts';

/** Callers, the report store and the API-requests series. */
export type ReportsServices = AuthServices & Pick<Services, 'reports' | 'apiRequests'>;
type ApiRequest = AnyApiRequest<ReportsServices>;

const nowSeconds = (req: ApiRequest) => Math.floor(req.services.clock.now().getTime() / 1000);

/** Public stats reads (overview, overview summary, breakdown) may be edge-cached for other readers; the owner's reads bypass the cache. */
function statsResponse(body: unknown, owner: boolean): ApiResponse {
  return json(200, body, owner ? {} : { 'Cache-Control': 'public, max-age=60' });
}

/** Access before validation: 401/403 for keys, 404 for inaccessible sites, 403 for the owner of an unverified site. */
async function accessibleSite(req: ApiRequest): Promise<{ site: SiteRecord; owner: boolean }> {
  const access = await readableSite(req, req.params.hostname ?? '');
  if (access.owner) requireVerifiedForOwner(access.site);
  return access;
}

/** Access, then the common query parameters. */
async function reportRequest(req: ApiRequest, options: { ignoreTz?: boolean } = {}): Promise<{ q: ReportRequest; owner: boolean }> {
  const { site, owner } = await accessibleSite(req);
  const now = nowSeconds(req);
  const parsed = parseReportQuery(req.query, now, options);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const filters = await resolveGoalFilters(req.services.registry, site, parsed.filters, owner);
  return { q: { site: site.hostname, registration: registrationOf(site), range: parsed.range, tz: parsed.tz, filters, now }, owner };
}

async function overview(req: ApiRequest) {
  const { q, owner } = await reportRequest(req);
  const interval = parseInterval(req.query.interval);
  if (!interval.ok) throw new InvalidInputError(interval.error);
  return statsResponse(await getOverview(req.services.reports, q, interval.interval), owner);
}

async function overviewSummary(req: ApiRequest) {
  const { q, owner } = await reportRequest(req);
  return statsResponse(await getOverviewSummary(req.services.reports, q, parseSummaryLimit(req.query.limit)), owner);
}

async function breakdown(req: ApiRequest) {
  const { q, owner } = await reportRequest(req, { ignoreTz: true });
  const dim = parseBreakdownDim(req.query.dim);
  if (!dim) throw new UnknownDimensionError();
  return statsResponse(await getBreakdown(req.services.reports, q, dim, parseBreakdownLimit(req.query.limit)), owner);
}

/** Public like the stats reads, but not among those the spec lets an edge cache keep: always no-store. */
async function retention(req: ApiRequest) {
  const { q } = await reportRequest(req);
  return json(200, await getRetention(req.services.reports, q));
}

/** One event's metadata keys, or with `key` its top values: the owner only, also for public sites. */
async function eventMetadata(req: ApiRequest) {
  const { site } = await requireOwnedSiteRead(req, req.params.hostname ?? '');
  requireVerifiedForOwner(site);
  const now = nowSeconds(req);
  const parsed = parseReportQuery(req.query, now);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const filters = await resolveGoalFilters(req.services.registry, site, parsed.filters, true);
  const q = { site: site.hostname, registration: registrationOf(site), range: parsed.range, tz: parsed.tz, filters };
  const event = normalizeEventName(req.params.name ?? '');
  const limit = parseBreakdownLimit(req.query.limit);
  const key = req.query.key;
  return json(200, key === undefined ? await getMetadataKeys(req.services.reports, q, event, limit) : await getMetadataValues(req.services.reports, q, event, key, limit));
}

/**
 * API reports: the owner only, also for public sites (a key judged first); API sites before
 * verification, websites once verified; then the query.
 */
async function apiReportRequest(req: ApiRequest): Promise<ApiReportRequest> {
  const { site } = await requireOwnedSite(req, req.params.hostname ?? '', 'read');
  if (site.kind !== 'api') requireVerifiedForOwner(site);
  const parsed = parseApiReportQuery(req.query, nowSeconds(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  return { site: site.hostname, registration: registrationOf(site), range: parsed.range, tz: parsed.tz, filters: parsed.filters };
}

async function apiOverview(req: ApiRequest) {
  return json(200, await getApiOverview(req.services.apiRequests, await apiReportRequest(req)));
}

async function apiBreakdown(req: ApiRequest) {
  const q = await apiReportRequest(req);
  const dim = parseApiBreakdownDim(req.query.dim);
  if (!dim) throw new UnknownDimensionError();
  return json(200, await getApiBreakdown(req.services.apiRequests, q, dim, parseBreakdownLimit(req.query.limit)));
}

/** Verified websites and every API site, pinned first then by creation. */
async function sitesSummary(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'read');
  const tz = parseTimezone(req.query.tz);
  if (!tz) throw new InvalidInputError(INVALID_TIMEZONE);
  const sites = (await req.services.registry.listSites(principal.uid)).filter((s) => isVerified(s) || s.kind === 'api').sort(compareSites);
  const listed = sites.map((s) => ({ hostname: s.hostname, registration: registrationOf(s), pinned_at: s.pinned_at, kind: s.kind, verified: isVerified(s) }));
  return json(200, await getSitesSummary(req.services, listed, tz, nowSeconds(req)));
}

export const handler = createGroupHandler<ReportsServices>({
  'GET /api/sites/{hostname}/overview': overview,
  'GET /api/sites/{hostname}/overview/summary': overviewSummary,
  'GET /api/sites/{hostname}/breakdown': breakdown,
  'GET /api/sites/{hostname}/retention': retention,
  'GET /api/sites/summary': sitesSummary,
  'GET /api/sites/{hostname}/api/overview': apiOverview,
  'GET /api/sites/{hostname}/api/breakdown': apiBreakdown,
  'GET /api/sites/{hostname}/events/{name}/metadata': eventMetadata,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/reports.ts). */
export const createReportsHandler = (services: ReportsServices) => handler.lambda(services);
