/** Registry records from their DynamoDB items: the fields the ports name, absent ones null. */
import type { ManagementKeyRecord, SiteRecord } from '#ports/registry.ts';

const SITE_FIELDS = [
  'hostname', 'owner_uid', 'kind', 'display_name', 'is_public', 'created_at', 'verified_at', 'verify_token', 'reports_mode', 'pinned_at', 'last_seen_at', 'last_check',
] as const;

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
