/** Request and response schemas of the product API; the OpenAPI document is generated from them. */
import { z } from 'zod';

export const ErrorBody = z.object({ error: z.string() }).meta({ id: 'Error' });
const Timestamp = z.iso.datetime();
const Scope = z.enum(['read', 'manage', 'ingest']);

export const Site = z
  .object({
    hostname: z.string(),
    display_name: z.string(),
    is_public: z.boolean(),
    created_at: Timestamp,
    kind: z.enum(['web', 'api']),
    verified_at: Timestamp.nullable().optional().describe('Owner reads only'),
    verify_token: z.string().optional().describe('Owner reads only'),
    reports_mode: z.literal('inherit').optional().describe('Owner reads only'),
    pinned_at: Timestamp.nullable().optional().describe('Owner reads only'),
  })
  .meta({ id: 'Site' });

export const SiteList = z.object({ sites: z.array(Site) });

export const CreateSiteRequest = z.object({
  hostname: z.string(),
  kind: z.enum(['web', 'api']).optional().describe('Defaults to web'),
});

export const CreatedSite = z
  .object({ hostname: z.string(), verified_at: z.null(), verify_token: z.string(), kind: z.enum(['web', 'api']) })
  .meta({ id: 'CreatedSite' });

export const UpdateSiteRequest = z.object({
  display_name: z.string().max(100).optional(),
  is_public: z.boolean().optional(),
  reports_mode: z.literal('inherit').optional(),
  pinned: z.boolean().optional().describe('true pins the site now, false unpins it'),
});

export const UpdatedSite = z
  .object({
    hostname: z.string(),
    display_name: z.string(),
    is_public: z.boolean(),
    reports_mode: z.literal('inherit'),
    pinned_at: Timestamp.nullable(),
  })
  .meta({ id: 'UpdatedSite' });

export const DeletedSite = z.object({ deleted: z.string() });

export const SiteSetup = z.object({
  verified: z.boolean(),
  verified_at: Timestamp.nullable(),
  script_found: z.boolean(),
  last_seen_at: Timestamp.nullable(),
});

export const CreateManagementKeyRequest = z.object({
  label: z.string().max(100).optional(),
  scopes: z.array(Scope).min(1),
});

export const CreatedManagementKey = z.object({
  id: z.string(),
  key: z.string().describe('tt_mk_ + 48 lowercase hex; shown only here'),
  label: z.string(),
  scopes: z.array(Scope),
  created_at: Timestamp,
});

export const ManagementKey = z
  .object({
    id: z.string(),
    label: z.string(),
    scopes: z.array(Scope),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable(),
    revoked_at: Timestamp.nullable(),
  })
  .meta({ id: 'ManagementKey' });

export const ManagementKeyList = z.object({ keys: z.array(ManagementKey) });
export const RevokedKey = z.object({ revoked: z.string() });

export const Me = z.object({
  uid: z.string(),
  auth: z.enum(['id_token', 'management_key']),
  scopes: z.array(Scope).describe('The key scopes; all three for an ID token'),
  key_id: z.string().nullable(),
  site_count: z.number().int(),
});

export const PlainText = z.string();
