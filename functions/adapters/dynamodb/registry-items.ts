/** Registry records from their DynamoDB items: the fields the ports name, absent ones null. */
import type { ClaimRecord, ManagementKeyRecord, SiteRecord } from '#ports/registry.ts';

/** A site item's attributes besides its keys: what getSite reads (a projection, as the collector's IAM policy names them). */
export const SITE_FIELDS = [
  'hostname', 'owner_uid', 'kind', 'display_name', 'is_public', 'created_at', 'verified_at', 'verify_token', 'reports_mode', 'pinned_at', 'last_seen_at', 'last_check',
  'redirect_hosts', 'embed_origins', 'retention_months', 'last_purge',
] as const;

/** getSite's projection: every field by a placeholder name (some are DynamoDB reserved words). */
export const SITE_PROJECTION = {
  ProjectionExpression: SITE_FIELDS.map((_, i) => `#f${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(SITE_FIELDS.map((f, i) => [`#f${i}`, f])),
};

export function toSite(item: Record<string, unknown> | undefined): SiteRecord | null {
  if (!item) return null;
  const site = Object.fromEntries(SITE_FIELDS.map((f) => [f, item[f] ?? null])) as unknown as SiteRecord;
  return site;
}

export function toKey(item: Record<string, unknown> | undefined): ManagementKeyRecord | null {
  if (!item) return null;
  return {
    id: item.id as string,
    owner_uid: item.owner_uid as string,
    secret_hash: item.secret_hash as string,
    label: (item.label as string) ?? '',
    scopes: (item.scopes as ManagementKeyRecord['scopes']) ?? [],
    created_at: item.created_at as string,
    last_used_at: (item.last_used_at as string) ?? null,
    revoked_at: (item.revoked_at as string) ?? null,
  };
}

/** A claim's item: its expiry is the table's TTL attribute (`expires_at`, Unix seconds). */
export function claimItem(claim: ClaimRecord): Record<string, unknown> {
  const { expires_at, ...fields } = claim;
  return { ...fields, expires_at: Math.ceil(Date.parse(expires_at) / 1000) };
}

export function toClaim(item: Record<string, unknown> | undefined): ClaimRecord | null {
  if (!item) return null;
  return {
    hostname: item.hostname as string,
    claimant_uid: item.claimant_uid as string,
    token: item.token as string,
    owner_uid: item.owner_uid as string,
    registration_token: item.registration_token as string,
    created_at: item.created_at as string,
    expires_at: new Date((item.expires_at as number) * 1000).toISOString(),
  };
}
