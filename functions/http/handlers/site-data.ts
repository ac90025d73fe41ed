/**
 * Route group `data` (issue 42): the owner's erasure of a site's rows in a
 * range of days, from every series the event store holds (ports/site-data.ts;
 * ID token only). Answers the days removed and the rows of each series.
 * 501 on a Timestream deployment (frozen: no removal there).
 */
import { InvalidInputError, NotAvailableOnStoreError } from '#domain/errors.ts';
import { parseErasureRange } from '#domain/data-retention/retention.ts';
import { registrationOf } from '#domain/registration.ts';
import type { Services } from '#platform/services.ts';
import { log } from '#platform/log.ts';
import { createGroupHandler, json, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireOwnedSiteByIdToken, type AuthServices } from '../auth.ts';

export type SiteDataServices = AuthServices & Pick<Services, 'siteData'>;
type ApiRequest = AnyApiRequest<SiteDataServices>;

async function eraseData(req: ApiRequest) {
  const { site } = await requireOwnedSiteByIdToken(req, req.params.hostname ?? '');
  const range = parseErasureRange(req.query.from, req.query.to);
  if (!range.ok) throw new InvalidInputError(range.error);
  if (!req.services.siteData) throw new NotAvailableOnStoreError();
  const removed = await req.services.siteData.removeSiteData({ site: site.hostname, registration: registrationOf(site) }, range.from, range.to);
  log.info('site data erased', { hostname: site.hostname, from: req.query.from, to: req.query.to, ...removed });
  return json(200, { hostname: site.hostname, from: req.query.from, to: req.query.to, removed });
}

export const handler = createGroupHandler<SiteDataServices>({
  'DELETE /api/sites/{hostname}/data': eraseData,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/data.ts). */
export const createSiteDataHandler = (services: SiteDataServices) => handler.lambda(services);
