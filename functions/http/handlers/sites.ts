/** Route group `sites`: the site registry (spec part 4 "Site registry and summaries"). */
import { MAX_SITES_PER_ACCOUNT } from '#domain/auth.ts';
import { HostnameTakenError, InvalidInputError, InvalidKindError, PublicNeedsVerificationError, SiteLimitError, UnknownSiteError } from '#domain/errors.ts';
import { normalizeHostname, type SiteKind } from '#domain/hostname.ts';
import {
  compareSites,
  createdView,
  isVerified,
  newSiteRecord,
  ownerView,
  unverifiedHoldCutoff,
  parseSiteSettings,
  publicView,
  settingsToPatch,
  updatedView,
} from '#domain/site.ts';
import { hostTwins } from '#domain/page-scan.ts';
import { setupDrops } from '#domain/recent-drops.ts';
import { trackerSnippet } from '#domain/snippet.ts';
import { retentionOf } from '#domain/data-retention/retention.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest } from '../api.ts';
import { readableSite, requireOwnedSite, requireOwnedSiteByIdToken, requirePrincipal, type AuthServices } from '../auth.ts';
import { findSite, siteChanged } from '#domain/site-lookup.ts';
import { checkSite, originsFor, runVerification, type VerifyServices } from '#domain/site-verification-run.ts';
import type { Services } from '#platform/services.ts';
import { iconIsStale, PLACEHOLDER_ICON, refreshIcon, type IconServices } from '#domain/site-icon.ts';
import { singleIconRefresh, takeCheck, type SiteCheckState } from '#domain/site-checks.ts';
import type { PageCheck } from '#ports/page-checker.ts';
import { claimRoutes } from './site-claims.ts';
import { siteKeyRoutes } from './site-api-keys.ts';
import { shareLinkRoutes } from './share-links.ts';

/** Callers, the registry with its caches, verification runs, site icons, and (in one process with the collector) its recent drops. */
export type SitesServices = AuthServices & VerifyServices & IconServices & SiteCheckState & Pick<Services, 'recentDrops' | 'config'>;
type ApiRequest = AnyApiRequest<SitesServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';

async function listSites(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'read');
  const sites = await req.services.registry.listSites(principal.uid);
  return json(200, { sites: sites.sort(compareSites).map(ownerView) });
}

async function createSite(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'manage');
  const body = jsonBody(req);
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const kind = fields.kind === undefined ? 'web' : fields.kind;
  if (kind !== 'web' && kind !== 'api') throw new InvalidKindError();
  const normalized = normalizeHostname(fields.hostname, kind as SiteKind);
  if (!normalized.ok) throw new InvalidInputError(normalized.error);
  const now = req.services.clock.now();
  const record = newSiteRecord(normalized.hostname, kind, principal.uid, now);
  const result = await req.services.registry.createSite(record, MAX_SITES_PER_ACCOUNT, unverifiedHoldCutoff(now));
  switch (result.outcome) {
    case 'created':
      siteChanged(req.services, record.hostname, result.site);
      return json(201, createdView(result.site));
    case 'exists':
      return json(200, createdView(result.site));
    case 'taken':
      throw new HostnameTakenError();
    case 'limit':
      throw new SiteLimitError();
  }
}

async function getSite(req: ApiRequest) {
  const { site, owner } = await readableSite(req, hostnameParam(req));
  return json(200, owner ? ownerView(site) : publicView(site));
}

async function updateSite(req: ApiRequest) {
  const { principal, site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const parsed = parseSiteSettings(jsonBody(req), req.services.config.retentionMaxMonths);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  if (parsed.settings.is_public && !isVerified(site)) throw new PublicNeedsVerificationError();
  const updated = await req.services.registry.updateSite(site.hostname, principal.uid, settingsToPatch(parsed.settings, req.services.clock.now()));
  siteChanged(req.services, site.hostname, updated);
  if (!updated) throw new UnknownSiteError();
  return json(200, updatedView(updated));
}

async function deleteSite(req: ApiRequest) {
  const { principal, site } = await requireOwnedSiteByIdToken(req, hostnameParam(req));
  const deleted = await req.services.registry.deleteSite(site.hostname, principal.uid);
  siteChanged(req.services, site.hostname, null);
  if (!deleted) throw new UnknownSiteError();
  // Its e-mail reports went with its partition; a workspace digest that names it stops naming it.
  await req.services.registry.digests.dropWorkspaceSite(principal.uid, site.hostname);
  // The site is gone: a failure to remove its icon is logged, not answered (a retry would find no site to delete).
  await req.services.icons.delete(site.hostname).catch((e: unknown) => {
    req.services.log.warn('removing the site icon failed', { hostname: site.hostname, message: (e as Error).message });
  });
  return json(200, { deleted: site.hostname });
}

/** The site's icon from `page`, one refresh per site at a time. */
const refreshSiteIcon = (req: ApiRequest, hostname: string, page: PageCheck) => singleIconRefresh(req.services, hostname, () => refreshIcon(req.services, hostname, page));

async function verifySite(req: ApiRequest) {
  const { principal, site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  takeCheck(req.services, principal.uid, site.hostname);
  const { site: after, verification, page } = await runVerification(req.services, site, 'verify', { servedOrigin: req.servedOrigin });
  // A site that verifies gets its icon from the page just read.
  if (verification.ok) await refreshSiteIcon(req, site.hostname, page);
  // The Site as before, plus why the check did not pass (200 either way: the call worked).
  return json(200, { ...ownerView(after), verification });
}

/** The site's www./apex twin when the caller may see its drops: unregistered, or the caller's own. */
async function visibleTwin(req: ApiRequest, hostname: string, uid: string): Promise<string[]> {
  const twin = hostTwins(hostname)[1] as string;
  const registered = await findSite(req.services, twin);
  return !registered || registered.owner_uid === uid ? [twin] : [];
}

async function siteSetup(req: ApiRequest) {
  const { principal, site: owned } = await requireOwnedSite(req, hostnameParam(req), 'read');
  // last_seen_at moves with every beacon, so read it fresh rather than from the site cache.
  const site = (await req.services.registry.getSite(owned.hostname)) ?? owned;
  // A read does not change the registration; POST …/verify does.
  const options = { servedOrigin: req.servedOrigin };
  const { page, verification } = await checkSite(req.services, site, options);
  const origin = site.kind === 'web' ? originsFor(req.services, options)[0] : undefined;
  const counts = req.services.recentDrops;
  const drops = counts ? setupDrops(counts, site.hostname, [site.hostname, ...(await visibleTwin(req, site.hostname, principal.uid))]) : null;
  return json(200, {
    verified: isVerified(site),
    verified_at: site.verified_at,
    script_found: page.reachable && page.scriptFound,
    last_seen_at: site.last_seen_at,
    verification,
    last_check: site.last_check,
    snippet: origin ? trackerSnippet(origin) : null,
    local_snippet: origin ? trackerSnippet(origin, site.hostname) : null,
    recent_drops: drops?.recent_drops ?? null,
    local_drops: drops?.local_drops ?? null,
    redirect_hosts: site.redirect_hosts ?? [],
    embed_origins: site.embed_origins ?? [],
    retention_months: retentionOf(site, req.services.config.retentionMaxMonths),
    last_purge: site.last_purge ?? null,
  });
}

/**
 * The site's icon with the metadata read's rules (public sites anonymously), a neutral square
 * when there is none. A verified website's icon a week old (or never looked for: a site the
 * collector verified) is looked for again first.
 */
async function siteIcon(req: ApiRequest) {
  const { site } = await readableSite(req, hostnameParam(req));
  let stored = await req.services.icons.get(site.hostname);
  if (site.kind === 'web' && isVerified(site) && iconIsStale(stored, req.services.clock.now())) {
    stored = await singleIconRefresh(req.services, site.hostname, async () => {
      const { page } = await checkSite(req.services, site, { servedOrigin: req.servedOrigin });
      return refreshIcon(req.services, site.hostname, page);
    });
  }
  const image = stored?.image ?? PLACEHOLDER_ICON;
  return {
    statusCode: 200,
    headers: {
      'Content-Type': image.contentType,
      'Cache-Control': 'private, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
      // Opened on its own, an image from a site runs nothing here.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    },
    body: image.body.toString('base64'),
    isBase64Encoded: true,
  };
}

export const handler = createGroupHandler<SitesServices>({
  'GET /api/sites': listSites,
  'POST /api/sites': createSite,
  'GET /api/sites/{hostname}': getSite,
  'PATCH /api/sites/{hostname}': updateSite,
  'DELETE /api/sites/{hostname}': deleteSite,
  'POST /api/sites/{hostname}/verify': verifySite,
  'GET /api/sites/{hostname}/setup': siteSetup,
  'GET /api/sites/{hostname}/icon': siteIcon,
  ...claimRoutes,
  ...siteKeyRoutes,
  ...shareLinkRoutes,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/sites.ts). */
export const createSitesHandler = (services: SitesServices) => handler.lambda(services);
