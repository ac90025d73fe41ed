/**
 * What a share link gives access to (issue 40, part 5): the slug names a
 * live link of a verified site whose owner made it (a site moved to another
 * account by a DNS claim lost its links with its partition); a link with a
 * password also needs a valid grant. Unknown, revoked and malformed slugs
 * alike are 404 `unknown share link`, and no slug is ever in an error text.
 */
import { SharePasswordRequiredError, UnknownShareLinkError } from '#domain/errors.ts';
import { GRANT_HEADER, grantHolds } from '#domain/sharing/grant.ts';
import { isSlug, slugHash } from '#domain/sharing/share-link.ts';
import { isVerified } from '#domain/site.ts';
import { findSite, type SiteLookup } from '#domain/site-lookup.ts';
import type { Registry, SiteRecord } from '#ports/registry.ts';
import type { ShareLinkRecord } from '#ports/share-links.ts';
import type { ApiRequest } from './api.ts';

/** What resolving a link reads: the site lookup and the registry's links. */
export type ShareServices = SiteLookup & { registry: Pick<Registry, 'shares'> & SiteLookup['registry']; clock: { now(): Date } };

/** The live link `slug` names and its site; 404 otherwise. */
export async function sharedLink(services: ShareServices, slug: string | undefined): Promise<{ link: ShareLinkRecord; site: SiteRecord }> {
  const link = isSlug(slug) ? await services.registry.shares.findBySlugHash(slugHash(slug)) : null;
  const site = link ? await findSite(services, link.site) : null;
  if (!link || !site || site.owner_uid !== link.owner_uid || !isVerified(site)) throw new UnknownShareLinkError();
  return { link, site };
}

/** The link and site a read of `/api/share/{slug}/…` may see: a link without a password, or one with a valid grant (401 otherwise). */
export async function readableShare(req: ApiRequest<ShareServices>): Promise<{ link: ShareLinkRecord; site: SiteRecord }> {
  const shared = await sharedLink(req.services, req.params.slug);
  if (shared.link.password_hash !== null) {
    const grant = req.headers[GRANT_HEADER];
    const now = Math.floor(req.services.clock.now().getTime() / 1000);
    if (!grant || !grantHolds(await req.services.registry.shares.grantSecret(), grant, shared.link.id, now)) throw new SharePasswordRequiredError();
  }
  return shared;
}

/** The origins that may frame the share view of `slug`: its site's `embed_origins`, none for anything that is no live link. */
export async function embedOriginsOf(services: ShareServices, slug: string): Promise<readonly string[]> {
  try {
    return (await sharedLink(services, slug)).site.embed_origins ?? [];
  } catch (e) {
    if (e instanceof UnknownShareLinkError) return [];
    throw e;
  }
}
