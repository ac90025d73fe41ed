/**
 * Route group `crawlers` (issue 41): a site's link to a Cloudflare zone (ID
 * token only; the token is checked against Cloudflare, sealed at rest, never
 * answered or logged), the zones a token can read (ID token only; the token
 * in the X-Cloudflare-Token header, never in a URL), a sync now (`manage`)
 * and the hits read (`read`; owner only, also for public sites).
 */
import { CloudflareTokenRequiredError, InvalidInputError, NoCrawlerLinkError, UnknownDimensionError } from '#domain/errors.ts';
import { CRAWLER_DIMS, isCloudflareToken, linkView, parseLinkRequest } from '#domain/crawlers/link-request.ts';
import { registrationOf } from '#domain/registration.ts';
import { parseBreakdownLimit, parseReportQuery } from '#domain/reports/query.ts';
import { CloudflareError } from '#ports/cloudflare.ts';
import type { CrawlerDim } from '#ports/crawler-hits.ts';
import type { Services } from '#platform/services.ts';
import { getCrawlerReport } from '#reports/crawler-reports.ts';
import { crawlerTokenContext, syncCrawlerLink } from '#workers/crawler-sync.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireIdToken, requireOwnedSite, requireOwnedSiteByIdToken, requireOwnedSiteRead, type AuthServices } from '../auth.ts';

export type CrawlersServices = AuthServices & Pick<Services, 'crawlerHits' | 'cloudflare' | 'secrets'>;
type ApiRequest = AnyApiRequest<CrawlersServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';
const links = (req: ApiRequest) => req.services.registry.crawlerLinks;

/** Cloudflare's refusal as a 400 with its text (which never holds the token). */
async function fromCloudflare<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof CloudflareError) throw new InvalidInputError(e.message);
    throw e;
  }
}

async function link(req: ApiRequest) {
  const { principal, site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  const parsed = parseLinkRequest(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const zone = await fromCloudflare(() => req.services.cloudflare.checkZone(parsed.token, parsed.zoneId));
  const ref = { site: site.hostname, registration: registrationOf(site) };
  const record = {
    ...ref,
    owner_uid: principal.uid,
    zone_id: zone.id,
    zone_name: zone.name,
    sealed_token: await req.services.secrets.seal(parsed.token, crawlerTokenContext(ref)),
    linked_at: req.services.clock.now().toISOString(),
    last_sync_at: null,
    last_error: null,
    synced_through: null,
  };
  await links(req).put(record);
  return json(200, { link: linkView(record) });
}

async function unlink(req: ApiRequest) {
  const { site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  await links(req).delete(site.hostname);
  return json(200, { link: null });
}

async function zones(req: ApiRequest) {
  await requireIdToken(req);
  const token = req.headers['x-cloudflare-token'];
  if (!isCloudflareToken(token)) throw new CloudflareTokenRequiredError();
  return json(200, { zones: await fromCloudflare(() => req.services.cloudflare.listZones(token)) });
}

/** The site's current link (of this registration), or null. */
async function currentLink(req: ApiRequest, site: { hostname: string; registration: string }) {
  const record = await links(req).get(site.hostname);
  return record && record.registration === site.registration ? record : null;
}

async function sync(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const record = await currentLink(req, { hostname: site.hostname, registration: registrationOf(site) });
  if (!record) throw new NoCrawlerLinkError();
  const result = await syncCrawlerLink({ ...req.services, crawlerLinks: links(req) }, record);
  return json(200, { link: linkView({ ...record, ...result }) });
}

async function stats(req: ApiRequest) {
  const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
  const now = Math.floor(req.services.clock.now().getTime() / 1000);
  const parsed = parseReportQuery(req.query, now);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const dim = req.query.dim ?? 'crawlers';
  if (!(CRAWLER_DIMS as readonly string[]).includes(dim)) throw new UnknownDimensionError();
  const registration = registrationOf(site);
  const [report, record] = await Promise.all([
    getCrawlerReport(req.services.crawlerHits, { site: site.hostname, registration, range: parsed.range, tz: parsed.tz, dim: dim as CrawlerDim, limit: parseBreakdownLimit(req.query.limit) }),
    currentLink(req, { hostname: site.hostname, registration }),
  ]);
  return json(200, { ...report, link: linkView(record) });
}

export const handler = createGroupHandler<CrawlersServices>({
  'POST /api/sites/{hostname}/crawlers/link': link,
  'DELETE /api/sites/{hostname}/crawlers/link': unlink,
  'GET /api/cloudflare/zones': zones,
  'POST /api/sites/{hostname}/crawlers/sync': sync,
  'GET /api/sites/{hostname}/crawlers': stats,
});

export const createCrawlersHandler = (services: CrawlersServices) => handler.lambda(services);
