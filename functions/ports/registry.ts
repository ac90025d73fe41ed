/**
 * Port: the registry of sites, accounts and management keys (DynamoDB in AWS,
 * the same code over dynalite locally), one part per kind of record: sites,
 * DNS claims on them, management keys, daily salts.
 */
import type { PurgeRun } from '#domain/data-retention/retention.ts';
import type { SiteKind } from '#domain/hostname.ts';
import type { Scope } from '#domain/auth.ts';
import type { SiteCheck } from '#domain/site-verification.ts';
import type { SiteApiKeys } from './site-api-keys.ts';
import type { AlertRules } from './alert-rules.ts';
import type { Goals } from './goals.ts';
import type { LiveStreams } from './live-streams.ts';
import type { EmailReports } from './email-reports.ts';
import type { ShareLinks } from './share-links.ts';
import type { SearchLinks } from './search-console.ts';
import type { CrawlerLinks } from './crawler-links.ts';

export interface SiteRecord {
  hostname: string;
  owner_uid: string;
  kind: SiteKind;
  display_name: string;
  is_public: boolean;
  created_at: string;
  verified_at: string | null;
  verify_token: string;
  reports_mode: 'inherit';
  pinned_at: string | null;
  last_seen_at: string | null;
  /** The last verification attempt (POST …/verify or the collector's), for the setup view. */
  last_check: SiteCheck | null;
  /** Hosts `/r` may redirect to besides the site's own and its subdomains (none: null, on records made before them). */
  redirect_hosts: string[] | null;
  /** Origins that may frame the site's share links (none: null, on records made before them). */
  embed_origins: string[] | null;
  /** Months its rows are kept (issue 42); null: the default, 25 (domain/data-retention/retention.ts). */
  retention_months: number | null;
  /** The retention purge's last run on the site; null before the first. */
  last_purge: PurgeRun | null;
}

export interface SitePatch {
  display_name?: string;
  is_public?: boolean;
  reports_mode?: 'inherit';
  pinned_at?: string | null;
  redirect_hosts?: string[];
  embed_origins?: string[];
  retention_months?: number;
}

export type CreateSiteResult =
  | { outcome: 'created'; site: SiteRecord }
  | { outcome: 'exists'; site: SiteRecord }
  | { outcome: 'taken' }
  | { outcome: 'limit' };

/**
 * An account's claim on another account's registration of a hostname (functions/domain/site-claim.ts):
 * one per hostname and claimant, for the registration it names.
 */
export interface ClaimRecord {
  hostname: string;
  claimant_uid: string;
  /** What the TXT record `tinytrack-claim=<token>` must hold. */
  token: string;
  /** The registration claimed: its owner and its verify token (new for every registration). */
  owner_uid: string;
  registration_token: string;
  created_at: string;
  expires_at: string;
}

export type StartClaimResult = { outcome: 'created' | 'exists'; claim: ClaimRecord };

/** `changed`: the registration claimed is no longer there (deleted, or claimed first by someone else); `site` is what is there now. */
export type MoveSiteResult = { outcome: 'moved'; site: SiteRecord } | { outcome: 'changed'; site: SiteRecord | null } | { outcome: 'limit' };

export interface ManagementKeyRecord {
  id: string;
  owner_uid: string;
  /** SHA-256 of the secret, hex; the secret itself is never stored. */
  secret_hash: string;
  label: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface SiteRegistry {
  getSite(hostname: string): Promise<SiteRecord | null>;
  /**
   * Registers atomically: global uniqueness and the per-account limit hold
   * under concurrency. Another account's registration that is still
   * unverified and was created before `lapsedBefore` (ISO 8601) is removed
   * first, as a delete would, and this one takes its place.
   */
  createSite(site: SiteRecord, maxSitesPerAccount: number, lapsedBefore: string): Promise<CreateSiteResult>;
  listSites(ownerUid: string): Promise<SiteRecord[]>;
  countSites(ownerUid: string): Promise<number>;
  /** Null when the site does not exist or belongs to someone else. */
  updateSite(hostname: string, ownerUid: string, patch: SitePatch): Promise<SiteRecord | null>;
  markVerified(hostname: string, at: string): Promise<SiteRecord | null>;
  /** Keeps the latest verification attempt on the site; null when the site is gone. */
  recordCheck(hostname: string, check: SiteCheck): Promise<SiteRecord | null>;
  /** Removes the registration and everything stored under it; false when absent or not owned. */
  deleteSite(hostname: string, ownerUid: string): Promise<boolean>;
  /**
   * Replaces the registration `from` with `to` (another owner) in one conditional write, only while
   * `from` is still that very registration (its owner and verify token), so a delete or another
   * claim in between wins and this one changes nothing. The new owner's site slot is taken first
   * (`limit` at `maxSitesPerAccount`); on success the old owner's slot is given back and what was
   * stored under the old registration (import jobs, claims…) is removed, as a delete would.
   */
  moveSite(from: SiteRecord, to: SiteRecord, maxSitesPerAccount: number): Promise<MoveSiteResult>;
  /** Keeps the purge's last run on the site while it is still `ownerUid`'s registration; false when it is not. */
  recordPurge(hostname: string, ownerUid: string, run: PurgeRun): Promise<boolean>;
  /** Records the latest stored beacon time of a site (for the setup check). */
  recordSiteSeen(hostname: string, at: string): Promise<void>;
}

export interface SiteClaims {
  /**
   * Keeps `claim` unless the claimant has an active one (not expired at `now`, ISO 8601) on the
   * same registration, which is returned instead: one active claim per hostname and claimant.
   */
  startClaim(claim: ClaimRecord, now: string): Promise<StartClaimResult>;
  /** The claimant's claim on the hostname, expired or not; null when there is none. */
  getClaim(hostname: string, claimantUid: string): Promise<ClaimRecord | null>;
}

export interface ManagementKeys {
  /** False when the account already has `maxActive` active keys. */
  createManagementKey(key: ManagementKeyRecord, maxActive: number): Promise<boolean>;
  findManagementKey(secretHash: string): Promise<ManagementKeyRecord | null>;
  listManagementKeys(ownerUid: string): Promise<ManagementKeyRecord[]>;
  /** The revoked record, or null when unknown, not owned or already revoked. */
  revokeManagementKey(ownerUid: string, id: string, at: string): Promise<ManagementKeyRecord | null>;
  touchManagementKey(secretHash: string, at: string): Promise<void>;
}

export interface DailySalts {
  /**
   * The salt of a UTC day: the first instance to ask stores `candidate`, every
   * other instance gets that one. `expiresAt` (Unix seconds) lets the store's
   * TTL remove it even if rotation never runs.
   */
  getOrCreateDailySalt(day: string, candidate: string, expiresAt: number): Promise<string>;
  /** Deletes the salts of days before `day` (YYYY-MM-DD); returns how many. */
  deleteSaltsBefore(day: string): Promise<number>;
}

/** The whole registry, as the services are given it (functions/platform/services.ts). */
export interface Registry extends SiteRegistry, SiteClaims, ManagementKeys, DailySalts, SiteApiKeys, AlertRules, Goals {
  /** E-mail digests: site reports, account defaults, workspace digests (issue 38). */
  readonly digests: EmailReports;
  /** The live stream's tickets and per-account stream slots (issue 39). */
  readonly live: LiveStreams;
  /** Secret share links of sites (issue 40, part 5). */
  readonly shares: ShareLinks;
  /** Search Console links and their consent states (issue 41). */
  readonly searchConsole: SearchLinks;
  /** Sites' links to a Cloudflare zone for crawler hits (issue 41). */
  readonly crawlerLinks: CrawlerLinks;
}
