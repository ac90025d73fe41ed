/**
 * The share link routes of the `sites` group (issue 40, part 5): the owner
 * lists, creates and revokes a site's links (owner only, also for public
 * sites: reads need `read`, changes `manage`); anyone holding a link with a
 * password trades it for a read grant. The slug is returned once, at
 * creation; the password is kept only as its scrypt hash, and every unlock
 * counts against the link's 10 guesses a minute before the hash is computed.
 */
import { randomUUID } from 'node:crypto';
import { isUuid } from '#domain/uuid.ts';
import {
  ChecksRateLimitedError,
  InvalidInputError,
  NoSharePasswordError,
  ShareLinkLimitError,
  ShareNeedsVerificationError,
  UnknownShareLinkError,
  WrongSharePasswordError,
} from '#domain/errors.ts';
import { GRANT_TTL_SECONDS, signGrant } from '#domain/sharing/grant.ts';
import { hashPassword, verifyPassword } from '#domain/sharing/password.ts';
import {
  embedPagePath,
  guessWindow,
  MAX_SHARE_LINKS,
  newSlug,
  parseShareLinkRequest,
  parseUnlockRequest,
  SHARE_GUESSES_PER_MINUTE,
  sharePagePath,
  shareLinkView,
  slugHash,
} from '#domain/sharing/share-link.ts';
import { isVerified } from '#domain/site.ts';
import type { ShareLinkRecord } from '#ports/share-links.ts';
import { json, jsonBody, type ApiRequest as AnyApiRequest, type RouteHandler } from '../api.ts';
import { requireOwnedSite, requireOwnedSiteRead, type AuthServices } from '../auth.ts';
import { sharedLink } from '../share-access.ts';

type ApiRequest = AnyApiRequest<AuthServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';
const shares = (req: ApiRequest) => req.services.registry.shares;

async function listShares(req: ApiRequest) {
  const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
  const links = await shares(req).links.list(site.hostname);
  links.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  return json(200, { shares: links.map(shareLinkView) });
}

async function createShare(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  if (!isVerified(site)) throw new ShareNeedsVerificationError();
  // No body: a link without label or password; a body that is no JSON object: refused.
  const parsed = parseShareLinkRequest(req.body.length === 0 ? {} : jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const slug = newSlug();
  const link: ShareLinkRecord = {
    id: randomUUID(),
    site: site.hostname,
    owner_uid: site.owner_uid,
    label: parsed.value.label,
    slug_hash: slugHash(slug),
    password_hash: parsed.value.password === null ? null : await hashPassword(parsed.value.password),
    created_at: req.services.clock.now().toISOString(),
  };
  if (!(await shares(req).links.create(link, MAX_SHARE_LINKS))) throw new ShareLinkLimitError();
  return json(201, { ...shareLinkView(link), slug, share_path: sharePagePath(slug), embed_path: embedPagePath(slug) });
}

async function revokeShare(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const id = isUuid(req.params.id) ? (req.params.id as string) : null;
  if (!id || !(await shares(req).links.delete(site.hostname, id))) throw new UnknownShareLinkError();
  return json(200, { revoked: id });
}

/** The password, once, for a grant: its body judged first, then the guess counted, then the hash compared. */
async function unlockShare(req: ApiRequest) {
  const { link } = await sharedLink(req.services, req.params.slug);
  if (link.password_hash === null) throw new NoSharePasswordError();
  const parsed = parseUnlockRequest(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const nowMs = req.services.clock.now().getTime();
  const window = guessWindow(nowMs);
  if (!(await shares(req).takeGuess(link.site, link.id, window, SHARE_GUESSES_PER_MINUTE))) {
    throw new ChecksRateLimitedError(Math.max(1, Math.ceil((window + 60_000 - nowMs) / 1000)));
  }
  if (!(await verifyPassword(parsed.password, link.password_hash))) throw new WrongSharePasswordError();
  const expires = Math.floor(nowMs / 1000) + GRANT_TTL_SECONDS;
  return json(200, { grant: signGrant(await shares(req).grantSecret(), link.id, expires), expires_at: new Date(expires * 1000).toISOString() });
}

export const shareLinkRoutes: Record<string, RouteHandler<AuthServices>> = {
  'GET /api/sites/{hostname}/shares': listShares,
  'POST /api/sites/{hostname}/shares': createShare,
  'DELETE /api/sites/{hostname}/shares/{id}': revokeShare,
  'POST /api/share/{slug}/unlock': unlockShare,
};
