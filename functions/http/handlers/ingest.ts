/**
 * Route group `ingest`: POST /api/ingest (spec part 4 "Other endpoints", part 5
 * rules 3, 5, 12): request metrics from an owner's API. The credential is a
 * site API key for its own site, or a management key with `ingest` and the
 * site in X-Service-Site; it is judged before the body. Not rate limited. The
 * rows are stamped with the arrival time and answered 202 once durably
 * received (locally in the receipt journal, on AWS in SQS).
 */
import { randomUUID } from 'node:crypto';
import { hasScope, hashSecret, parseAuthorization } from '#domain/auth.ts';
import {
  IngestNeedsVerificationError,
  InvalidInputError,
  NotAvailableOnStoreError,
  ScopeRequiredError,
  ServiceSiteMismatchError,
  ServiceSiteRequiredError,
  SignInRequiredError,
  StoreUnavailableError,
  UnknownApiKeyError,
  UnknownSiteError,
} from '#domain/errors.ts';
import { parseIngestBatch } from '#domain/api-requests/ingest-batch.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import { isSiteApiKeyFormat } from '#domain/api-requests/site-api-key.ts';
import { QueueFullError } from '#domain/queue-full.ts';
import { registrationOf } from '#domain/registration.ts';
import { isVerified } from '#domain/site.ts';
import { findSite, type SiteLookup } from '#domain/site-lookup.ts';
import type { TtlCache } from '#domain/ttl-cache.ts';
import type { Queue } from '#ports/queue.ts';
import type { Registry, SiteRecord } from '#ports/registry.ts';
import type { SiteApiKeyRecord } from '#ports/site-api-keys.ts';
import { log } from '#platform/log.ts';
import { KEY_CACHE_TTL_MS } from '#platform/instance-state.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest, type ApiResponse } from '../api.ts';
import { managementKeyPrincipal, touchAtMostEveryMinute, type KeyServices } from '../auth.ts';

/** What the ingest route reads: sites, both kinds of key, the queue of API request rows. */
export type IngestServices = SiteLookup &
  KeyServices & {
    registry: Pick<Registry, 'getSite' | 'findManagementKey' | 'touchManagementKey' | 'findSiteApiKey' | 'touchSiteApiKey'>;
    /** Site API keys by secret hash: 30 s, as management keys. */
    siteKeyCache: TtlCache<string, SiteApiKeyRecord | null>;
    apiRequestQueue: Queue<ApiRequestRow>;
    /** False on a deployment whose event store keeps no API requests (Timestream, frozen). */
    apiRequestsAvailable: boolean;
  };
type ApiRequest = AnyApiRequest<IngestServices>;

const SERVICE_SITE = 'x-service-site';

async function siteKey(services: IngestServices, secret: string): Promise<SiteApiKeyRecord | null> {
  const hash = hashSecret(secret);
  const cached = services.siteKeyCache.get(hash);
  if (cached) return cached.value;
  const record = await services.registry.findSiteApiKey(hash);
  services.siteKeyCache.set(hash, record, KEY_CACHE_TTL_MS);
  return record;
}

/** The site the credential may send for, judged before anything is read of the body. */
async function ingestSite(req: ApiRequest): Promise<SiteRecord> {
  const { services } = req;
  const credential = parseAuthorization(req.headers.authorization);
  const named = req.headers[SERVICE_SITE]?.trim();
  if (credential.kind === 'none') throw new SignInRequiredError();
  if (credential.kind === 'management_key') {
    const principal = await managementKeyPrincipal(services, credential.secret);
    // Scope only: ingest is not rate limited (spec part 5 rule 12), unlike other changes a key makes.
    if (!hasScope(principal, 'ingest')) throw new ScopeRequiredError('ingest');
    if (!named) throw new ServiceSiteRequiredError();
    const site = await findSite(services, named);
    if (!site || site.owner_uid !== principal.uid) throw new UnknownSiteError();
    return site;
  }
  // Site API keys are bearer tokens of their own form; an ID token or anything else is no ingest credential (as no credential at all).
  if (!isSiteApiKeyFormat(credential.token)) throw new SignInRequiredError();
  const key = await siteKey(services, credential.token);
  if (!key) throw new UnknownApiKeyError();
  const site = await findSite(services, key.site);
  // The key's registration is gone (deleted, or the hostname moved to another account): the key went with it.
  if (!site || registrationOf(site) !== key.registration) throw new UnknownApiKeyError();
  if (named && named !== key.site) throw new ServiceSiteMismatchError();
  const at = services.clock.now().toISOString();
  await touchAtMostEveryMinute(services.keyTouches, `site:${key.secret_hash}`, () => services.registry.touchSiteApiKey(key.site, key.id, at));
  return site;
}

async function ingest(req: ApiRequest): Promise<ApiResponse> {
  const site = await ingestSite(req);
  // Websites send API data once verified; API sites from the start (spec part 5 rule 10).
  if (site.kind !== 'api' && !isVerified(site)) throw new IngestNeedsVerificationError();
  if (!req.services.apiRequestsAvailable) throw new NotAvailableOnStoreError();
  const parsed = parseIngestBatch(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const ts = req.services.clock.now().getTime();
  const registration = registrationOf(site);
  const rows: ApiRequestRow[] = parsed.requests.map((r) => ({ site: site.hostname, registration, ts, id: randomUUID(), ...r }));
  try {
    await req.services.apiRequestQueue.sendBatch(rows);
  } catch (e) {
    if (!(e instanceof QueueFullError)) log.error('ingest queue refused', { message: (e as Error).message });
    // Nothing of the batch is taken: the client may send it again.
    throw new StoreUnavailableError();
  }
  return json(202, { accepted: rows.length });
}

export const handler = createGroupHandler<IngestServices>({ 'POST /api/ingest': ingest });

/** The group's Lambda handler over what its composition root built (functions/aws/http/ingest.ts). */
export const createIngestHandler = (services: IngestServices) => handler.lambda(services);
