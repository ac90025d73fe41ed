/**
 * The DNS claim routes of the `sites` group (functions/domain/site-claim.ts): another account's
 * verified hostname, claimed with an ID token. Their own file so the group's handler lists them in
 * one line; the rules live in the domain.
 */
import { activeClaim, claimView, completeClaim, startClaim, type ClaimServices } from '#domain/site-claim.ts';
import { ownerView } from '#domain/site.ts';
import { takeCheck, type SiteCheckState } from '#domain/site-checks.ts';
import { json, type ApiRequest, type RouteHandler } from '../api.ts';
import { requireIdToken, type AuthServices } from '../auth.ts';

/** What the claim routes read: callers, the registry, DNS, and the explicit checks' limits. */
type ClaimRouteServices = AuthServices & ClaimServices & Pick<SiteCheckState, 'accountChecks' | 'siteChecks'>;

const hostnameParam = (req: ApiRequest<ClaimRouteServices>) => req.params.hostname ?? '';

/** 201 with a new claim, 200 with the caller's active one. */
async function claimSite(req: ApiRequest<ClaimRouteServices>) {
  const principal = await requireIdToken(req);
  const { claim, created } = await startClaim(req.services, principal.uid, hostnameParam(req));
  return json(created ? 201 : 200, claimView(claim));
}

/** 201 with the caller's new registration when the TXT record is there. */
async function verifyClaim(req: ApiRequest<ClaimRouteServices>) {
  const principal = await requireIdToken(req);
  const { site, claim } = await activeClaim(req.services, principal.uid, hostnameParam(req));
  // The one explicit check this call makes (a DNS lookup), counted with POST …/verify's.
  takeCheck(req.services, principal.uid, site.hostname);
  const claimed = await completeClaim(req.services, site, claim);
  return json(201, ownerView(claimed));
}

export const claimRoutes: Record<string, RouteHandler<ClaimRouteServices>> = {
  'POST /api/sites/{hostname}/claim': claimSite,
  'POST /api/sites/{hostname}/claim/verify': verifyClaim,
};
