/**
 * Route group `reports` (spec part 4 "Reports", sites summary): access first
 * (management key, then site access, then the owner's verification), then
 * query validation, then the report builders. A share link's reads (issue 40,
 * part 5) are the same reports of the link's site, as a public reader gets them.
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
import { readableShare } from '../share-access.ts';

/** Callers, the report store and the API-requests series. */
export type ReportsServices = AuthServices & Pick<Services, 'reports' | 'apiRequests'>;
type ApiRequest = AnyApiRequest<ReportsServices>;

const nowSeconds = (req: ApiRequest) => Math.floor(req.services.clock.now().getTime() / 1000);

/** Who reads: the site, whether the caller owns it, and whether the answer may be edge-cached for others. */
type Reader = { site: SiteRecord; owner: boolean; cacheable: boolean };
type Access = (req: ApiRequest) => Promise<Reader>;

/** Public stats reads (overview, overview summary, breakdown) may be edge-cached for other readers; the owner's and a share link's reads never are. */
function statsResponse(body: unknown, reader: Reader): ApiResponse {
  return json(200, body, reader.cacheable ? { 'Cache-Control': 'public, max-age=60' } : {});
}

/** Access before validation: 401/403 for keys, 404 for inaccessible sites, 403 for the owner of an unverified site. */
const siteAccess: Access = async (req) => {
  const access = await readableSite(req, req.params.hostname ?? '');
  if (access.owner) requireVerifiedForOwner(access.site);
  return { ...access, cacheable: !access.owner };
};

/** A share link's reads (`/api/share/{slug}/…`): the link's site as a public reader sees it, never cached (a password's grant is no cache key). */
const shareAccess: Access = async (req) => ({ site: (await readableShare(req)).site, owner: false, cacheable: false });

/** Access, then the common query parameters. */
async function reportRequest(req: ApiRequest, access: Access, options: { ignoreTz?: boolean } = {}): Promise<{ q: ReportRequest; reader: Reader }> {
  const reader = await access(req);
  const { site, owner } = reader;
  const now = nowSeconds(req);
  const parsed = parseReportQuery(req.query, now, options);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const filters = await resolveGoalFilters(req.services.registry, site, parsed.filters, owner);
  return { q: { site: site.hostname, registration: registrationOf(site), range: parsed.range, tz: parsed.tz, filters, now }, reader };
}

const overview = (access: Access) => async (req: ApiRequest) => {
  const { q, reader } = await reportRequest(req, access);
  const interval = parseInterval(req.query.interval);
  if (!interval.ok) throw new InvalidInputError(interval.error);
  return statsResponse(await getOverview(req.services.reports, q, interval.interval), reader);
};

const overviewSummary = (access: Access) => async (req: ApiRequest) => {
  const { q, reader } = await reportRequest(req, access);
  return statsResponse(await getOverviewSummary(req.services.reports, q, parseSummaryLimit(req.query.limit)), reader);
};

const breakdown = (access: Access) => async (req: ApiRequest) => {
  const { q, reader } = await reportRequest(req, access, { ignoreTz: true });
  const dim = parseBreakdownDim(req.query.dim);
  if (!dim) throw new UnknownDimensionError();
  return statsResponse(await getBreakdown(req.services.reports, q, dim, parseBreakdownLimit(req.query.limit)), reader);
};

/** Public like the stats reads, but not among those the spec lets an edge cache keep: always no-store. */
const retention = (access: Access) => async (req: ApiRequest) => {
  const { q } = await reportRequest(req, access);
  return json(200, await getRetention(req.services.reports, q));
};

/** The site a share link reads, and the link's label. */
async function sharedSite(req: ApiRequest) {
  const { link, site } = await readableShare(req);
  return json(200, { hostname: site.hostname, display_name: site.display_name, label: link.label, password: link.password_hash !== null });
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
  'GET /api/sites/{hostname}/overview': overview(siteAccess),
  'GET /api/sites/{hostname}/overview/summary': overviewSummary(siteAccess),
  'GET /api/sites/{hostname}/breakdown': breakdown(siteAccess),
  'GET /api/sites/{hostname}/retention': retention(siteAccess),
  'GET /api/share/{slug}': sharedSite,
  'GET /api/share/{slug}/overview': overview(shareAccess),
  'GET /api/share/{slug}/overview/summary': overviewSummary(shareAccess),
  'GET /api/share/{slug}/breakdown': breakdown(shareAccess),
  'GET /api/share/{slug}/retention': retention(shareAccess),
  'GET /api/sites/summary': sitesSummary,
  'GET /api/sites/{hostname}/api/overview': apiOverview,
  'GET /api/sites/{hostname}/api/breakdown': apiBreakdown,
  'GET /api/sites/{hostname}/events/{name}/metadata': eventMetadata,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/reports.ts). */
export const createReportsHandler = (services: ReportsServices) => handler.lambda(services);
