/** Site views for each kind of reader, and PATCH validation (spec part 2 "Site", part 4). */
import { randomBytes } from 'node:crypto';
import type { SiteKind } from './hostname.ts';
import type { SitePatch, SiteRecord } from '#ports/registry.ts';
import { parseRedirectHosts } from './ingest/outbound.ts';
import { INVALID_EMBED_ORIGINS, parseEmbedOrigins } from './sharing/embed-origins.ts';
import { DEFAULT_RETENTION_MONTHS, INVALID_RETENTION, parseRetentionMonths } from './data-retention/retention.ts';

export const SITE_CACHE_TTL_VERIFIED_MS = 30_000;
export const SITE_CACHE_TTL_PENDING_MS = 15_000;
export const MAX_DISPLAY_NAME = 100;

export function newSiteRecord(hostname: string, kind: SiteKind, ownerUid: string, now: Date): SiteRecord {
  return {
    hostname,
    owner_uid: ownerUid,
    kind,
    display_name: '',
    is_public: false,
    created_at: now.toISOString(),
    verified_at: null,
    verify_token: `tt-verify-${randomBytes(12).toString('hex')}`,
    reports_mode: 'inherit',
    pinned_at: null,
    last_seen_at: null,
    last_check: null,
    redirect_hosts: [],
    embed_origins: [],
    retention_months: null,
    last_purge: null,
  };
}

export const isVerified = (site: SiteRecord): boolean => site.verified_at !== null;

/** How long an unverified registration holds its hostname against other accounts. */
export const UNVERIFIED_HOLD_MS = 7 * 86_400_000;

/** Registrations created before this instant, and still unverified, no longer hold their hostname. */
export const unverifiedHoldCutoff = (now: Date): string => new Date(now.getTime() - UNVERIFIED_HOLD_MS).toISOString();

/** Whether another account registering `site`'s hostname takes it over (created_at and the cutoff are ISO 8601 UTC, so they compare as text). */
export const isLapsedRegistration = (site: SiteRecord, cutoff: string): boolean => !isVerified(site) && site.created_at < cutoff;

export function ownerView(site: SiteRecord) {
  return {
    hostname: site.hostname,
    display_name: site.display_name,
    is_public: site.is_public,
    created_at: site.created_at,
    kind: site.kind,
    verified_at: site.verified_at,
    verify_token: site.verify_token,
    reports_mode: site.reports_mode,
    pinned_at: site.pinned_at,
  };
}

export function publicView(site: SiteRecord) {
  return { hostname: site.hostname, display_name: site.display_name, is_public: site.is_public, created_at: site.created_at, kind: site.kind };
}

export function createdView(site: SiteRecord) {
  return { hostname: site.hostname, verified_at: site.verified_at, verify_token: site.verify_token, kind: site.kind };
}

export function updatedView(site: SiteRecord) {
  return { hostname: site.hostname, display_name: site.display_name, is_public: site.is_public, reports_mode: site.reports_mode, pinned_at: site.pinned_at };
}

/** Pinned first (most recent pin first), then creation order. */
export function compareSites(a: SiteRecord, b: SiteRecord): number {
  if (a.pinned_at && b.pinned_at) return b.pinned_at.localeCompare(a.pinned_at) || a.created_at.localeCompare(b.created_at);
  if (a.pinned_at) return -1;
  if (b.pinned_at) return 1;
  return a.created_at.localeCompare(b.created_at) || a.hostname.localeCompare(b.hostname);
}

export type SiteSettings = Omit<SitePatch, 'pinned_at'> & { pinned?: boolean };
export type SettingsResult = { ok: true; settings: SiteSettings } | { ok: false; error: string };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The texts parseSiteSettings answers with, in the order it checks. */
export const SETTINGS_ERRORS = [
  'invalid settings',
  'invalid display name',
  'invalid sharing setting',
  'invalid reports mode',
  'invalid pin setting',
  // MAX_REDIRECT_HOSTS (20): written out, as every error text is once.
  'redirect_hosts must be a list of at most 20 hostnames',
  INVALID_EMBED_ORIGINS,
  INVALID_RETENTION,
] as const;
const [INVALID_SETTINGS, INVALID_DISPLAY_NAME, INVALID_SHARING, INVALID_REPORTS_MODE, INVALID_PIN, INVALID_REDIRECT_HOSTS] = SETTINGS_ERRORS;

/**
 * Field checks run in a fixed order; the first failure names its field. Unknown fields are ignored.
 * `retentionMaxMonths`: the operator's maximum (RETENTION_MAX_MONTHS).
 */
export function parseSiteSettings(body: unknown, retentionMaxMonths: number = DEFAULT_RETENTION_MONTHS): SettingsResult {
  if (!isPlainObject(body)) return { ok: false, error: INVALID_SETTINGS };
  const settings: SiteSettings = {};
  if ('display_name' in body) {
    const v = body.display_name;
    if (typeof v !== 'string' || v.trim().length > MAX_DISPLAY_NAME) return { ok: false, error: INVALID_DISPLAY_NAME };
    settings.display_name = v.trim();
  }
  if ('is_public' in body) {
    if (typeof body.is_public !== 'boolean') return { ok: false, error: INVALID_SHARING };
    settings.is_public = body.is_public;
  }
  if ('reports_mode' in body) {
    if (body.reports_mode !== 'inherit') return { ok: false, error: INVALID_REPORTS_MODE };
    settings.reports_mode = 'inherit';
  }
  if ('pinned' in body) {
    if (typeof body.pinned !== 'boolean') return { ok: false, error: INVALID_PIN };
    settings.pinned = body.pinned;
  }
  if ('redirect_hosts' in body) {
    const hosts = parseRedirectHosts(body.redirect_hosts);
    if (!hosts) return { ok: false, error: INVALID_REDIRECT_HOSTS };
    settings.redirect_hosts = hosts;
  }
  if ('embed_origins' in body) {
    const origins = parseEmbedOrigins(body.embed_origins);
    if (!origins) return { ok: false, error: INVALID_EMBED_ORIGINS };
    settings.embed_origins = origins;
  }
  if ('retention_months' in body) {
    const months = parseRetentionMonths(body.retention_months, retentionMaxMonths);
    if (months === null) return { ok: false, error: INVALID_RETENTION };
    settings.retention_months = months;
  }
  return { ok: true, settings };
}

/** The stored patch for valid settings; pinning again moves the pin to now. */
export function settingsToPatch(settings: SiteSettings, now: Date): SitePatch {
  const { pinned, ...rest } = settings;
  return pinned === undefined ? rest : { ...rest, pinned_at: pinned ? now.toISOString() : null };
}
