/**
 * The share link routes of the route table (issue 40, part 5). The owner's
 * list, create and revoke are in the `sites` group (a site's settings, whose
 * function already writes under the site's partition), as is the unlock,
 * which counts guesses on the link's item. The reads anyone holding a link
 * makes are in the `reports` group, beside the site reads they mirror: the
 * same query parameters and answers, never edge-cached. Listed by
 * functions/http/routes.ts.
 */
import * as s from './share-schemas.ts';
import { crudRoutes } from './goal-routes.ts';
import { checksRateLimited, invalidInput, refusals, type RouteDef } from './route-def.ts';
import { SHARE_LINK_ERRORS, INVALID_UNLOCK } from '#domain/sharing/share-link.ts';
import {
  NoSharePasswordError,
  ShareLinkLimitError,
  ShareNeedsVerificationError,
  SharePasswordRequiredError,
  UnknownShareLinkError,
  WrongSharePasswordError,
} from '#domain/errors.ts';

const SITE_PATH = '/api/sites/{hostname}';
const SHARE_PATH = '/api/share/{slug}';
const READER = 'Anyone holding the link; with a password, the grant from …/unlock in X-Share-Grant.';
const readerRefusals = [UnknownShareLinkError, SharePasswordRequiredError] as const;

const ownerRoutes: RouteDef[] = crudRoutes({
  group: 'sites',
  path: `${SITE_PATH}/shares`,
  noun: 'share links',
  list: s.ShareLinkList,
  record: s.CreatedShareLink,
  create: s.CreateShareLinkRequest,
  deleted: s.RevokedShareLink,
  errors: SHARE_LINK_ERRORS,
  created: [ShareLinkLimitError, ShareNeedsVerificationError],
  unknown: UnknownShareLinkError,
  summary: {
    list: "The site's share links, oldest first, without their slugs (shown once, at creation).",
    create:
      'Create a secret share link: anyone holding /share/link/{slug} reads the site’s public reports (overview, summary, breakdown, retention) without the site being public. ' +
      'An optional password is asked once. Verified sites only; at most 20 per site. The slug is in this answer only.',
  },
});

const unlockRoute: RouteDef = {
  method: 'POST',
  path: `${SHARE_PATH}/unlock`,
  group: 'sites',
  auth: 'none',
  summary: 'Trade a share link’s password for a read grant (an hour). Every try counts: at most 10 a minute per link.',
  request: s.UnlockShareRequest,
  responses: {
    200: { description: 'grant', schema: s.ShareGrant },
    ...refusals(invalidInput([INVALID_UNLOCK]), NoSharePasswordError, WrongSharePasswordError, UnknownShareLinkError, checksRateLimited),
  },
};

const siteRoute: RouteDef = {
  method: 'GET',
  path: SHARE_PATH,
  group: 'reports',
  auth: 'none',
  summary: `The shared site: hostname, display name, the link's label. ${READER}`,
  responses: { 200: { description: 'shared site', schema: s.SharedSite }, ...refusals(...readerRefusals) },
};

/** A site report read as a share link's: same query and answer, the link's refusals instead of the site's, never edge-cached. */
function sharedRead(route: RouteDef): RouteDef {
  const invalid = route.responses[400]?.errors ?? [];
  const notImplemented = route.responses[501]?.errors ?? [];
  const responses = refusals(invalidInput(invalid), ...readerRefusals, ...(notImplemented.length > 0 ? [{ kind: 'not_implemented' as const, texts: notImplemented }] : []));
  const ok = route.responses[200];
  return {
    ...route,
    path: route.path.replace(SITE_PATH, SHARE_PATH),
    auth: 'none',
    scope: undefined,
    summary: `${route.summary.replace(/ Public for verified public sites.*$/, '')} ${READER} Cache-Control: no-store.`,
    responses: ok ? { 200: ok, ...responses } : responses,
  };
}

/** The share routes, the reads made from the site report routes they mirror. */
export const shareRoutes = (siteReports: readonly RouteDef[]): RouteDef[] => [...ownerRoutes, unlockRoute, siteRoute, ...siteReports.map(sharedRead)];
