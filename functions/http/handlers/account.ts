/** Route group `account`: the caller and management keys (spec part 5, DESIGN.md §4). */
import { randomUUID } from 'node:crypto';
import { MAX_ACTIVE_MANAGEMENT_KEYS, SCOPES, hashSecret, newManagementKeySecret, parseKeyRequest } from '#domain/auth.ts';
import { InvalidInputError, KeyLimitError, SelfRevokeOnlyError, UnknownKeyError } from '#domain/errors.ts';
import type { ManagementKeyRecord } from '#ports/registry.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireIdToken, requirePrincipal, type AuthServices } from '../auth.ts';
import { KEY_CACHE_TTL_MS } from '#platform/instance-state.ts';

/** Callers and their management keys. */
export type AccountServices = AuthServices;
type ApiRequest = AnyApiRequest<AccountServices>;

const keyView = (k: ManagementKeyRecord) => ({
  id: k.id,
  label: k.label,
  scopes: k.scopes,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
  revoked_at: k.revoked_at,
});

async function me(req: ApiRequest) {
  const principal = await requirePrincipal(req);
  const siteCount = await req.services.registry.countSites(principal.uid);
  return json(200, {
    uid: principal.uid,
    auth: principal.kind === 'key' ? 'management_key' : 'id_token',
    scopes: principal.kind === 'key' ? principal.scopes : SCOPES,
    key_id: principal.kind === 'key' ? principal.keyId : null,
    site_count: siteCount,
  });
}

async function createKey(req: ApiRequest) {
  const principal = await requireIdToken(req);
  const parsed = parseKeyRequest(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const { label, scopes } = parsed;
  const secret = newManagementKeySecret();
  const record: ManagementKeyRecord = {
    id: randomUUID(),
    owner_uid: principal.uid,
    secret_hash: hashSecret(secret),
    label,
    scopes,
    created_at: req.services.clock.now().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  if (!(await req.services.registry.createManagementKey(record, MAX_ACTIVE_MANAGEMENT_KEYS))) {
    throw new KeyLimitError();
  }
  return json(201, { id: record.id, key: secret, label: record.label, scopes: record.scopes, created_at: record.created_at });
}

async function listKeys(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'read');
  const keys = await req.services.registry.listManagementKeys(principal.uid);
  keys.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id));
  return json(200, { keys: keys.map(keyView) });
}

async function revoke(req: ApiRequest, ownerUid: string, id: string) {
  const revoked = await req.services.registry.revokeManagementKey(ownerUid, id, req.services.clock.now().toISOString());
  if (!revoked) throw new UnknownKeyError();
  // This instance stops accepting the key at once; others within their cache TTL.
  req.services.keyCache.set(revoked.secret_hash, revoked, KEY_CACHE_TTL_MS);
  return json(200, { revoked: revoked.id });
}

async function revokeSelf(req: ApiRequest) {
  const principal = await requirePrincipal(req);
  if (principal.kind !== 'key') throw new SelfRevokeOnlyError();
  return revoke(req, principal.uid, principal.keyId);
}

async function revokeOther(req: ApiRequest) {
  const principal = await requirePrincipal(req, 'manage');
  return revoke(req, principal.uid, req.params.id ?? '');
}

export const handler = createGroupHandler<AccountServices>({
  'GET /api/me': me,
  'POST /api/management-keys': createKey,
  'GET /api/management-keys': listKeys,
  'DELETE /api/management-keys/self': revokeSelf,
  'DELETE /api/management-keys/{id}': revokeOther,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/account.ts). */
export const createAccountHandler = (services: AccountServices) => handler.lambda(services);
