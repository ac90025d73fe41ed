/**
 * Claiming a hostname by DNS (issue 34): the first account to verify a hostname keeps it, unless
 * another account shows that it controls the hostname's DNS. That account starts a claim (a token,
 * valid 7 days, one active claim per hostname and account), publishes the TXT record
 * `tinytrack-claim=<token>` on the hostname, and asks for it to be checked; when the record is
 * there, the hostname moves to it as a new registration, verified, with a new verify token. The old
 * registration goes as after a delete: its rows stay with it (their registration key names the old
 * owner, functions/domain/registration.ts), invisible to the claimant.
 */
import { randomBytes } from 'node:crypto';
import { MAX_SITES_PER_ACCOUNT } from './auth.ts';
import { ClaimOvertakenError, ClaimRecordMissingError, NoActiveClaimError, OwnSiteClaimError, SiteLimitError, UnknownSiteError, UnverifiedClaimError } from './errors.ts';
import { isVerified, newSiteRecord } from './site.ts';
import { findSiteFor, siteChanged, type SiteLookup } from './site-lookup.ts';
import type { Clock } from '#ports/clock.ts';
import type { PageChecker } from '#ports/page-checker.ts';
import type { ClaimRecord, SiteClaims, SiteRecord } from '#ports/registry.ts';

/** How long a claim's token can be published and checked. */
export const CLAIM_TTL_MS = 7 * 86_400_000;
export const CLAIM_TXT_PREFIX = 'tinytrack-claim=';

/** What a claim reads: the registry behind the site caches, the clock, the DNS TXT lookup. */
export interface ClaimServices extends SiteLookup {
  registry: SiteLookup['registry'] & SiteClaims;
  clock: Clock;
  pageChecker: Pick<PageChecker, 'hasTxtRecord'>;
}

/** A new claim by `claimantUid` on `site`'s registration; its expiry in whole seconds, as the store keeps it. */
export function newClaim(site: SiteRecord, claimantUid: string, now: Date): ClaimRecord {
  return {
    hostname: site.hostname,
    claimant_uid: claimantUid,
    token: `tt-claim-${randomBytes(16).toString('hex')}`,
    owner_uid: site.owner_uid,
    registration_token: site.verify_token,
    created_at: now.toISOString(),
    expires_at: new Date(Math.ceil((now.getTime() + CLAIM_TTL_MS) / 1000) * 1000).toISOString(),
  };
}

/** Whether `claim` can still move `site`: not expired, and on this very registration (a new one needs a new claim). */
export const isActiveClaim = (claim: ClaimRecord, site: SiteRecord, now: Date): boolean =>
  claim.expires_at > now.toISOString() && claim.owner_uid === site.owner_uid && claim.registration_token === site.verify_token;

/** The claim as its claimant sees it: the token and the exact TXT record to publish. */
export function claimView(claim: ClaimRecord) {
  return { hostname: claim.hostname, claim_token: claim.token, txt_record: `${CLAIM_TXT_PREFIX}${claim.token}`, expires_at: claim.expires_at };
}

/** Another account's verified registration of `hostname`; 404 when there is none, 409 when it is the caller's or unverified. */
async function claimableSite(services: ClaimServices, claimantUid: string, hostname: string): Promise<SiteRecord> {
  // A registration owned by someone else is read from the registry, not believed from the cache.
  const site = await findSiteFor(services, hostname, claimantUid);
  if (!site) throw new UnknownSiteError();
  if (site.owner_uid === claimantUid) throw new OwnSiteClaimError();
  if (!isVerified(site)) throw new UnverifiedClaimError();
  return site;
}

/** Starts a claim on `hostname`, or gives back the caller's active one; `created` tells which. */
export async function startClaim(services: ClaimServices, claimantUid: string, hostname: string): Promise<{ claim: ClaimRecord; created: boolean }> {
  const site = await claimableSite(services, claimantUid, hostname);
  const now = services.clock.now();
  const { outcome, claim } = await services.registry.startClaim(newClaim(site, claimantUid, now), now.toISOString());
  return { claim, created: outcome === 'created' };
}

/** The registration the caller claims and its active claim on it; 404 when there is no such claim. */
export async function activeClaim(services: ClaimServices, claimantUid: string, hostname: string): Promise<{ site: SiteRecord; claim: ClaimRecord }> {
  const site = await claimableSite(services, claimantUid, hostname);
  const claim = await services.registry.getClaim(site.hostname, claimantUid);
  if (!claim || !isActiveClaim(claim, site, services.clock.now())) throw new NoActiveClaimError();
  return { site, claim };
}

/**
 * Looks for the claim's TXT record on the hostname and, when it is there, moves the hostname to
 * the claimant: a new registration (new verify token, verified now, private, not pinned, the same
 * kind), in one write conditional on the old registration being still there. A delete or another
 * claim that lands first wins: then 404 (gone) or 409 (someone else's now).
 */
export async function completeClaim(services: ClaimServices, site: SiteRecord, claim: ClaimRecord): Promise<SiteRecord> {
  if (!(await services.pageChecker.hasTxtRecord(site.hostname, claim.token, CLAIM_TXT_PREFIX))) throw new ClaimRecordMissingError();
  const now = services.clock.now();
  const claimed: SiteRecord = { ...newSiteRecord(site.hostname, site.kind, claim.claimant_uid, now), verified_at: now.toISOString() };
  const moved = await services.registry.moveSite(site, claimed, MAX_SITES_PER_ACCOUNT);
  switch (moved.outcome) {
    case 'moved':
      siteChanged(services, site.hostname, moved.site);
      return moved.site;
    case 'limit':
      throw new SiteLimitError();
    case 'changed':
      siteChanged(services, site.hostname, moved.site);
      throw moved.site ? new ClaimOvertakenError() : new UnknownSiteError();
  }
}
