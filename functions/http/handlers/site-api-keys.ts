/**
 * The site API key routes of the `sites` group (DESIGN.md §4): list, create
 * (the secret shown once), rotate (a new secret, shown once), revoke. Owner
 * only, even for public sites; reads need `read`, changes `manage` (and a
 * management key's changes count against its rate limit). API sites may have
 * keys before verification; a website once verified.
 */
import { randomUUID } from 'node:crypto';
import { isUuid } from '#domain/uuid.ts';
import { hashSecret } from '#domain/auth.ts';
import { InvalidInputError, SiteKeyLimitError, SiteKeysNeedVerificationError, UnknownKeyError } from '#domain/errors.ts';
import { MAX_SITE_API_KEYS, newSiteApiKeySecret, parseSiteKeyRequest } from '#domain/api-requests/site-api-key.ts';
import { registrationOf } from '#domain/registration.ts';
import { isVerified } from '#domain/site.ts';
import type { SiteApiKeyRecord } from '#ports/site-api-keys.ts';
import { json, jsonBody, type ApiRequest, type RouteHandler } from '../api.ts';
import { requireOwnedSite, type AuthServices } from '../auth.ts';
import { KEY_CACHE_TTL_MS } from '#platform/instance-state.ts';

const keyView = (k: SiteApiKeyRecord) => ({ id: k.id, label: k.label, created_at: k.created_at, rotated_at: k.rotated_at, last_used_at: k.last_used_at });

const hostnameParam = (req: ApiRequest<AuthServices>) => req.params.hostname ?? '';

/** This instance stops accepting a replaced or revoked secret at once; others within their cache TTL (30 s). */
const forget = (req: ApiRequest<AuthServices>, secretHash: string) => req.services.siteKeyCache.set(secretHash, null, KEY_CACHE_TTL_MS);

async function listKeys(req: ApiRequest<AuthServices>) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'read');
  const keys = await req.services.registry.listSiteApiKeys(site.hostname);
  keys.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
  return json(200, { keys: keys.map(keyView) });
}

async function createKey(req: ApiRequest<AuthServices>) {
  const { principal, site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  if (site.kind !== 'api' && !isVerified(site)) throw new SiteKeysNeedVerificationError();
  const parsed = parseSiteKeyRequest(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const secret = newSiteApiKeySecret();
  const record: SiteApiKeyRecord = {
    id: randomUUID(),
    site: site.hostname,
    registration: registrationOf(site),
    owner_uid: principal.uid,
    secret_hash: hashSecret(secret),
    label: parsed.label,
    created_at: req.services.clock.now().toISOString(),
    rotated_at: null,
    last_used_at: null,
  };
  if (!(await req.services.registry.createSiteApiKey(record, MAX_SITE_API_KEYS))) throw new SiteKeyLimitError();
  return json(201, { id: record.id, key: secret, label: record.label, created_at: record.created_at });
}

async function rotateKey(req: ApiRequest<AuthServices>) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const secret = newSiteApiKeySecret();
  const id = req.params.id;
  const rotation = isUuid(id) ? await req.services.registry.rotateSiteApiKey(site.hostname, id, hashSecret(secret), req.services.clock.now().toISOString()) : null;
  if (!rotation) throw new UnknownKeyError();
  forget(req, rotation.previousHash);
  const { key } = rotation;
  return json(200, { id: key.id, key: secret, label: key.label, created_at: key.created_at, rotated_at: key.rotated_at });
}

async function revokeKey(req: ApiRequest<AuthServices>) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const id = req.params.id;
  const revoked = isUuid(id) ? await req.services.registry.deleteSiteApiKey(site.hostname, id) : null;
  if (!revoked) throw new UnknownKeyError();
  forget(req, revoked.secret_hash);
  return json(200, { revoked: revoked.id });
}

export const siteKeyRoutes: Record<string, RouteHandler<AuthServices>> = {
  'GET /api/sites/{hostname}/keys': listKeys,
  'POST /api/sites/{hostname}/keys': createKey,
  'POST /api/sites/{hostname}/keys/{id}/rotate': rotateKey,
  'DELETE /api/sites/{hostname}/keys/{id}': revokeKey,
};
