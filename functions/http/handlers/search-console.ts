/**
 * Route group `search` (issue 41): Search Console. The consent flow under
 * `/api/import-oauth/google/` and the link routes take the ID token only
 * (keys 403); a sync needs `manage`, the stats `read`; all owner-only, also
 * for public sites. The refresh token is sealed at once and never answered,
 * logged or put in an error.
 */
import { GoogleNotConfiguredError, InvalidInputError, NoSearchPropertyError, NotAvailableOnStoreError, OAuthStateError, SearchNotLinkedError, UnknownDimensionError, UnknownSearchPropertyError } from '#domain/errors.ts';
import { INVALID_RANGE } from '#domain/reports/query.ts';
import { registrationOf } from '#domain/registration.ts';
import { codeChallenge, dayOf, linkView, newOAuthSecret, OAUTH_STATE_TTL_SECONDS, parseStatsQuery, PROPERTY_REQUIRED, ROUTE_SYNC_BUDGET_MS, stateHash } from '#domain/search-console/search-console.ts';
import { searchConsoleContext, type GoogleSearchClient, type SearchLinkRecord, type SearchStatsStore } from '#ports/search-console.ts';
import type { SecretBox } from '#ports/secret-box.ts';
import { log } from '#platform/log.ts';
import { syncSearchLink } from '#workers/search-console-sync.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireIdToken, requireOwnedSite, requireOwnedSiteByIdToken, requireOwnedSiteRead, type AuthServices } from '../auth.ts';

/** Callers, the registry, Google, the box the refresh tokens are sealed in, and the stats (null on Timestream). */
export type SearchServices = AuthServices & { google: GoogleSearchClient; secrets: SecretBox; searchStats: SearchStatsStore | null };
type ApiRequest = AnyApiRequest<SearchServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';
const links = (req: ApiRequest) => req.services.registry.searchConsole;

function configuredGoogle(req: ApiRequest): GoogleSearchClient {
  if (!req.services.google.configured) throw new GoogleNotConfiguredError();
  return req.services.google;
}

async function linkOf(req: ApiRequest, site: string): Promise<SearchLinkRecord> {
  const link = await links(req).getLink(site);
  if (!link) throw new SearchNotLinkedError();
  return link;
}

const openToken = (req: ApiRequest, link: SearchLinkRecord) => req.services.secrets.open(link.sealed_refresh_token, searchConsoleContext(link.site));

async function startConsent(req: ApiRequest) {
  const { principal, site } = await requireOwnedSiteByIdToken(req, req.query.hostname ?? '');
  const google = configuredGoogle(req);
  const state = newOAuthSecret();
  const verifier = newOAuthSecret();
  const expiresAt = Math.floor(req.services.clock.now().getTime() / 1000) + OAUTH_STATE_TTL_SECONDS;
  await links(req).createState(stateHash(state), { sub: principal.uid, site: site.hostname, verifier }, expiresAt);
  return json(200, { url: google.authorizeUrl(state, codeChallenge(verifier)), expires_in: OAUTH_STATE_TTL_SECONDS });
}

async function finishConsent(req: ApiRequest) {
  const principal = await requireIdToken(req);
  const google = configuredGoogle(req);
  const { code, state } = req.query;
  const kept = code && state ? await links(req).consumeState(stateHash(state), Math.floor(req.services.clock.now().getTime() / 1000)) : null;
  // Bound to the user who started it: another account's state is as good as none (and is used up).
  if (!kept || kept.sub !== principal.uid) throw new OAuthStateError();
  const { site } = await requireOwnedSiteByIdToken(req, kept.site);
  const { refreshToken } = await google.exchangeCode(code as string, kept.verifier);
  const previous = await links(req).getLink(site.hostname);
  if (previous) await revokeLink(req, previous);
  const link: SearchLinkRecord = {
    site: site.hostname,
    owner_uid: principal.uid,
    property: null,
    sealed_refresh_token: await req.services.secrets.seal(refreshToken, searchConsoleContext(site.hostname)),
    linked_at: req.services.clock.now().toISOString(),
    last_sync_at: null,
    last_error: null,
    synced_through: null,
  };
  await links(req).putLink(link);
  return json(200, { hostname: site.hostname, link: linkView(link) });
}

/** Revokes the link's grant at Google (best effort: a box that no longer opens it, or Google refusing, leaves it to lapse). */
async function revokeLink(req: ApiRequest, link: SearchLinkRecord): Promise<void> {
  try {
    await req.services.google.revoke(await openToken(req, link));
  } catch {
    log.warn('search console grant not revoked', { site: link.site });
  }
}

async function listProperties(req: ApiRequest) {
  const { site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  const google = configuredGoogle(req);
  const link = await linkOf(req, site.hostname);
  const token = await google.accessToken(await openToken(req, link));
  const properties = await google.listProperties(token);
  return json(200, { properties: properties.map((p) => ({ property: p.siteUrl, permission: p.permissionLevel })), link: linkView(link) });
}

async function chooseProperty(req: ApiRequest) {
  const { site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  const google = configuredGoogle(req);
  const body = jsonBody(req) as { property?: unknown } | null;
  const property = typeof body?.property === 'string' ? body.property : '';
  if (property === '' || property.length > 2048) throw new InvalidInputError(PROPERTY_REQUIRED);
  const link = await linkOf(req, site.hostname);
  const token = await google.accessToken(await openToken(req, link));
  if (!(await google.listProperties(token)).some((p) => p.siteUrl === property)) throw new UnknownSearchPropertyError();
  const patch = { property, synced_through: null, last_error: null };
  if (!(await links(req).updateLink(site.hostname, patch))) throw new SearchNotLinkedError();
  return json(200, { link: linkView({ ...link, ...patch }) });
}

async function unlink(req: ApiRequest) {
  const { site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  const link = await linkOf(req, site.hostname);
  await revokeLink(req, link);
  await links(req).deleteLink(site.hostname);
  return json(200, { deleted: true });
}

function statsStore(req: ApiRequest): SearchStatsStore {
  if (!req.services.searchStats) throw new NotAvailableOnStoreError();
  return req.services.searchStats;
}

async function syncNow(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const stats = statsStore(req);
  const google = configuredGoogle(req);
  const link = await linkOf(req, site.hostname);
  if (!link.property) throw new NoSearchPropertyError();
  const deadline = req.services.clock.now().getTime() + ROUTE_SYNC_BUDGET_MS;
  const synced = await syncSearchLink({ ...req.services, google, stats, log }, link, { deadline });
  return json(200, { link: linkView(synced.link), complete: synced.complete });
}

async function readStats(req: ApiRequest) {
  const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
  const stats = statsStore(req);
  const q = parseStatsQuery(req.query, dayOf(req.services.clock.now().getTime()));
  if (!q.ok) throw q.error === 'range' ? new InvalidInputError(INVALID_RANGE) : new UnknownDimensionError();
  const range = { site: site.hostname, registration: registrationOf(site), from: q.from, to: q.to };
  const [rows, totals, series, link] = await Promise.all([stats.searchBreakdown(range, q.dim, q.limit), stats.searchTotals(range), stats.searchDays(range), links(req).getLink(site.hostname)]);
  return json(200, { from: q.from, to: q.to, dim: q.dim, rows, totals, series, link: linkView(link) });
}

export const handler = createGroupHandler<SearchServices>({
  'GET /api/import-oauth/google/start': startConsent,
  'GET /api/import-oauth/google/callback': finishConsent,
  'GET /api/sites/{hostname}/gsc/properties': listProperties,
  'POST /api/sites/{hostname}/gsc/link': chooseProperty,
  'DELETE /api/sites/{hostname}/gsc/link': unlink,
  'POST /api/sites/{hostname}/gsc/sync': syncNow,
  'GET /api/sites/{hostname}/gsc': readStats,
});

/** The group's Lambda handler over what its composition root built. */
export const createSearchHandler = (services: SearchServices) => handler.lambda(services);
