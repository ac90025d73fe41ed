/**
 * Request authentication and the access rules of spec part 5: management keys
 * are judged before anything else, ID tokens through the TokenVerifier, and
 * site access for owners and anonymous readers of public sites.
 */
import { hasScope, hashSecret, isManagementKeyFormat, parseAuthorization, type Caller, type Principal, type Scope } from '#domain/auth.ts';
import {
  InvalidKeyError,
  KeysForbiddenError,
  RateLimitedError,
  ScopeRequiredError,
  SignInRequiredError,
  UnknownSiteError,
  UnverifiedOwnerError,
} from '#domain/errors.ts';
import { isVerified } from '#domain/site.ts';
import { findSite, findSiteFor, type SiteLookup } from '#domain/site-lookup.ts';
import type { SiteRecord } from '#ports/registry.ts';
import { KEY_CACHE_TTL_MS, type KeyState } from '#platform/instance-state.ts';
import type { Services } from '#platform/services.ts';
import type { ApiRequest as AnyApiRequest } from './api.ts';
import { log } from '#platform/log.ts';

const KEY_TOUCH_INTERVAL_MS = 60_000;

/** What resolving a caller and its access reads: every product group has it. */
export type AuthServices = SiteLookup & KeyState & Pick<Services, 'registry' | 'tokens' | 'clock'>;
type ApiRequest = AnyApiRequest<AuthServices>;

async function lookupKey(services: KeyServices, secretHash: string) {
  const cached = services.keyCache.get(secretHash);
  if (cached) return cached.value;
  const record = await services.registry.findManagementKey(secretHash);
  services.keyCache.set(secretHash, record, KEY_CACHE_TTL_MS);
  return record;
}

/** What judging a management key reads: its cache, its record, where its use is noted. */
export type KeyServices = Pick<KeyState, 'keyCache' | 'keyTouches'> & {
  registry: Pick<AuthServices['registry'], 'findManagementKey' | 'touchManagementKey'>;
  clock: AuthServices['clock'];
};

/** Notes a credential's use at most once a minute per instance; bookkeeping only, so a failed write (e.g. a read-only function) never fails the request. */
export async function touchAtMostEveryMinute(touches: KeyState['keyTouches'], key: string, touch: () => Promise<void>): Promise<void> {
  if (touches.get(key)) return;
  touches.set(key, true, KEY_TOUCH_INTERVAL_MS);
  await touch().catch((e: unknown) => {
    log.warn('last_used_at not recorded', { message: (e as Error).message });
  });
}

/** A management key's principal; an unknown, malformed or revoked key throws 401. */
export async function managementKeyPrincipal(services: KeyServices, secret: string): Promise<Principal & { kind: 'key' }> {
  if (!isManagementKeyFormat(secret)) throw new InvalidKeyError();
  const secretHash = hashSecret(secret);
  const record = await lookupKey(services, secretHash);
  if (!record || record.revoked_at) throw new InvalidKeyError();
  const now = services.clock.now();
  await touchAtMostEveryMinute(services.keyTouches, secretHash, () => services.registry.touchManagementKey(secretHash, now.toISOString()));
  return { kind: 'key', uid: record.owner_uid, keyId: record.id, scopes: record.scopes, secretHash };
}

async function resolve(req: ApiRequest): Promise<Caller> {
  const credential = parseAuthorization(req.headers.authorization);
  if (credential.kind === 'none') return { kind: 'anonymous', invalidToken: false };
  if (credential.kind === 'bearer') {
    const claims = await req.services.tokens.verifyIdToken(credential.token);
    return claims ? { kind: 'user', uid: claims.sub, email: claims.email } : { kind: 'anonymous', invalidToken: true };
  }
  return managementKeyPrincipal(req.services, credential.secret);
}

/** The caller, resolved once per request. An unknown or revoked management key throws 401 here, before any lookup. */
export function caller(req: ApiRequest): Promise<Caller> {
  req.caller ??= resolve(req);
  return req.caller;
}

const isChange = (method: string) => method !== 'GET' && method !== 'HEAD';

function checkScope(req: ApiRequest, principal: Principal, scope: Scope | undefined): Principal {
  if (scope && !hasScope(principal, scope)) throw new ScopeRequiredError(scope);
  if (principal.kind === 'key' && isChange(req.method) && !req.services.changeLimiter.take(principal.keyId)) throw new RateLimitedError();
  return principal;
}

/** An ID token, or a management key with `scope`; otherwise 401 / 403. */
export async function requirePrincipal(req: ApiRequest, scope?: Scope): Promise<Principal> {
  const c = await caller(req);
  if (c.kind === 'anonymous') throw new SignInRequiredError();
  return checkScope(req, c, scope);
}

/** Endpoints that need an ID token: keys get 403 (spec part 5 rule 6). */
export async function requireIdToken(req: ApiRequest): Promise<Principal & { kind: 'user' }> {
  const c = await caller(req);
  if (c.kind === 'key') throw new KeysForbiddenError();
  if (c.kind === 'anonymous') throw new SignInRequiredError();
  return c;
}

/**
 * An ID token's user where a management key is no credential at all (`/api/live/...`, spec part 4):
 * a key, like no token or a bad one, is 401 `sign in required`; the key is not even looked up.
 */
export async function requireUserToken(req: ApiRequest): Promise<string> {
  const credential = parseAuthorization(req.headers.authorization);
  const claims = credential.kind === 'bearer' ? await req.services.tokens.verifyIdToken(credential.token) : null;
  if (!claims) throw new SignInRequiredError();
  return claims.sub;
}

/** The caller's own site: owner ID token or key with `scope`; other accounts and unknown sites get 404. */
export async function requireOwnedSite(req: ApiRequest, hostname: string, scope?: Scope): Promise<{ principal: Principal; site: SiteRecord }> {
  const principal = await requirePrincipal(req, scope);
  const site = await findSiteFor(req.services, hostname, principal.uid);
  if (!site || site.owner_uid !== principal.uid) throw new UnknownSiteError();
  return { principal, site };
}

/**
 * Private reads of owner-only data (goals, funnels, event metadata): as requireOwnedSite, but a
 * missing, invalid or expired token is no access to the site, 404 (spec part 5 rule 9).
 */
export async function requireOwnedSiteRead(req: ApiRequest, hostname: string): Promise<{ principal: Principal; site: SiteRecord }> {
  if ((await caller(req)).kind === 'anonymous') throw new UnknownSiteError();
  return requireOwnedSite(req, hostname, 'read');
}

/** Like requireOwnedSite for ID-token-only endpoints. */
export async function requireOwnedSiteByIdToken(req: ApiRequest, hostname: string): Promise<{ principal: Principal; site: SiteRecord }> {
  const principal = await requireIdToken(req);
  const site = await findSiteFor(req.services, hostname, principal.uid);
  if (!site || site.owner_uid !== principal.uid) throw new UnknownSiteError();
  return { principal, site };
}

/**
 * Read access to a site: the owner (ID or `read` key), or anyone for a
 * verified public site. A key is judged first, also on public sites; a bad ID
 * token reads as anonymous; everything else inaccessible is 404.
 */
export async function readableSite(req: ApiRequest, hostname: string): Promise<{ site: SiteRecord; owner: boolean }> {
  const c = await caller(req);
  if (c.kind === 'key') checkScope(req, c, 'read');
  const site = c.kind === 'anonymous' ? await findSite(req.services, hostname) : await findSiteFor(req.services, hostname, c.uid);
  if (!site) throw new UnknownSiteError();
  if (c.kind !== 'anonymous' && site.owner_uid === c.uid) return { site, owner: true };
  if (site.is_public && isVerified(site)) return { site, owner: false };
  throw new UnknownSiteError();
}

/** Web statistics need a verified site; its owner is told why (spec part 4 "Reports"). */
export function requireVerifiedForOwner(site: SiteRecord): void {
  if (!isVerified(site)) throw new UnverifiedOwnerError();
}
