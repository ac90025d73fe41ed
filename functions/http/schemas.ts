/**
 * Request and response schemas of the product API; the OpenAPI document is
 * generated from them. Every schema a route names carries an `id`: it becomes
 * `#/components/schemas/<id>`.
 */
import { z } from 'zod';
import { DROP_REASONS } from '#domain/ingest/drop.ts';
import { PurgeRun } from './data-schemas.ts';

export { ErasedData } from './data-schemas.ts';

export const ErrorBody = z.object({ error: z.string() }).meta({ id: 'Error' });
export const Timestamp = z.iso.datetime();
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

export const SiteList = z.object({ sites: z.array(Site) }).meta({ id: 'SiteList' });

export const CreateSiteRequest = z
  .object({
    hostname: z.string(),
    kind: z.enum(['web', 'api']).optional().describe('Defaults to web'),
  })
  .meta({ id: 'CreateSiteRequest' });

export const CreatedSite = z
  .object({ hostname: z.string(), verified_at: z.null(), verify_token: z.string(), kind: z.enum(['web', 'api']) })
  .meta({ id: 'CreatedSite' });

export const UpdateSiteRequest = z
  .object({
    display_name: z.string().max(100).optional(),
    is_public: z.boolean().optional(),
    reports_mode: z.literal('inherit').optional(),
    pinned: z.boolean().optional().describe('true pins the site now, false unpins it'),
    redirect_hosts: z.array(z.string()).max(20).optional().describe('Hosts GET /r may redirect to besides the site and its subdomains, normalized as registration normalizes hostnames'),
    embed_origins: z.array(z.string()).max(10).optional().describe('Origins (https, or http on loopback) that may frame the site’s share links at /embed/{slug}; normalized; none: no framing'),
    retention_months: z.number().int().min(1).optional().describe('Months rows are kept: 1 to 25 (or RETENTION_MAX_MONTHS)'),
  })
  .meta({ id: 'UpdateSiteRequest' });

export const UpdatedSite = z
  .object({
    hostname: z.string(),
    display_name: z.string(),
    is_public: z.boolean(),
    reports_mode: z.literal('inherit'),
    pinned_at: Timestamp.nullable(),
  })
  .meta({ id: 'UpdatedSite' });

export const DeletedSite = z.object({ deleted: z.string() }).meta({ id: 'DeletedSite' });

export const Verification = z
  .object({
    ok: z.boolean(),
    method: z.enum(['script', 'token', 'dns']).nullable().describe('How the check passed; null when it did not'),
    reason: z
      .enum(['no_script', 'foreign_script', 'token_missing', 'unreachable', 'redirect_off_site'])
      .nullable()
      .describe(
        "Why the check did not pass; null when it did. foreign_script: a latest.js from another host, or a /latest.js on the site whose content is not this service's script",
      ),
    detail: z.string().describe('What was found, or what to fix'),
  })
  .meta({ id: 'Verification' });

export const SiteCheck = Verification.extend({
  checked_at: Timestamp,
  trigger: z.enum(['verify', 'collect']).describe('POST …/verify or the collector\'s automatic check'),
}).meta({ id: 'SiteCheck' });

export const SiteClaim = z
  .object({
    hostname: z.string(),
    claim_token: z.string(),
    txt_record: z.string().describe('The TXT record to publish on the hostname itself: tinytrack-claim=<claim_token>'),
    expires_at: Timestamp.describe('7 days after the claim was started; a new claim is needed after that'),
  })
  .meta({ id: 'SiteClaim' });

export const VerifiedSite = Site.extend({ verification: Verification }).meta({ id: 'VerifiedSite' });

export const SetupDrop = z
  .object({
    hostname: z.string().describe('As the beacons sent it, lowercased'),
    reason: z.enum(DROP_REASONS),
    count: z.number().int().min(1),
    first_at: Timestamp.describe('The first drop counted; a count restarts once this is a day old'),
    last_at: Timestamp,
    advice: z.string().describe('What to change so that such beacons count'),
  })
  .meta({ id: 'SetupDrop' });

export const SiteSetup = z
  .object({
    verified: z.boolean(),
    verified_at: Timestamp.nullable(),
    script_found: z.boolean(),
    last_seen_at: Timestamp.nullable(),
    verification: Verification.describe('The page as read now (DNS is read only by POST …/verify)'),
    last_check: SiteCheck.nullable().describe('The last verification attempt that was recorded'),
    snippet: z.string().nullable().describe('The script tag for the site\'s pages, from the first PUBLIC_URL origin; null for kind api'),
    local_snippet: z
      .string()
      .nullable()
      .describe('The same tag with data-hostname, for trying it on a page elsewhere (localhost, a staging host); null for kind api'),
    recent_drops: z
      .array(SetupDrop)
      .nullable()
      .describe(
        'Beacons of the last day that stored nothing, counted by this instance, for the hostname, its www./apex twin and their forms with a port; null where the collector runs in other instances (AWS)',
      ),
    redirect_hosts: z.array(z.string()).describe('Hosts GET /r may redirect to besides the site and its subdomains (set by the settings PATCH)'),
    embed_origins: z.array(z.string()).describe('Origins that may frame the site’s share links (set by the settings PATCH)'),
    retention_months: z.number().int().min(1).describe('Months the site keeps its rows (PATCH retention_months; default 25); the daily purge removes older ones'),
    last_purge: PurgeRun.nullable(),
    local_drops: z
      .array(SetupDrop)
      .nullable()
      .describe('Beacons of the last hour from pages on localhost or a loopback address that stored nothing (anyone\'s on this instance); null as recent_drops'),
  })
  .meta({ id: 'SiteSetup' });

export const CreateManagementKeyRequest = z
  .object({
    label: z.string().max(100).optional(),
    scopes: z.array(Scope).min(1),
  })
  .meta({ id: 'CreateManagementKeyRequest' });

export const CreatedManagementKey = z
  .object({
    id: z.string(),
    key: z.string().describe('tt_mk_ + 48 lowercase hex; shown only here'),
    label: z.string(),
    scopes: z.array(Scope),
    created_at: Timestamp,
  })
  .meta({ id: 'CreatedManagementKey' });

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

export const ManagementKeyList = z.object({ keys: z.array(ManagementKey) }).meta({ id: 'ManagementKeyList' });
export const RevokedKey = z.object({ revoked: z.string() }).meta({ id: 'RevokedKey' });


export const Me = z
  .object({
    uid: z.string(),
    auth: z.enum(['id_token', 'management_key']),
    scopes: z.array(Scope).describe('The key scopes; all three for an ID token'),
    key_id: z.string().nullable(),
    site_count: z.number().int(),
  })
  .meta({ id: 'Me' });

export const PlainText = z.string().meta({ id: 'PlainText' });

const optionalText = (max: number) => z.string().max(max).optional();
const size = () => z.number().int().min(0).max(100000).optional();

/** The collector payload (spec part 2); snake_case wire names (DESIGN.md §4). */
export const CollectorPayload = z
  .object({
    hostname: z.string().max(253),
    type: z
      .enum(['pageview', 'event', 'append', 'error'])
      .optional()
      .describe('Default pageview. append: an engagement append (the tracker\'s image fallback); error: a script\'s own failure, answered like any beacon, counted and never stored'),
    event: z.union([z.string(), z.number()]).optional().describe('Event name; normalized (part 6 rule 3)'),
    // A pattern, not startsWith: zod writes that as the non-standard `format: starts_with`.
    path: z.string().max(2048).regex(/^\//).optional(),
    query: optionalText(2048).describe('Page query string; campaign tags (UTM and plain form) are read from it when their own fields are absent'),
    referrer: optionalText(2048),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional().describe('At most 4,096 characters of JSON are stored'),
    id: optionalText(128).describe('Stable per logical event'),
    original_id: optionalText(128).describe('Appends: the parent pageview id'),
    ua: optionalText(1024),
    timezone: optionalText(64).describe('IANA name; the country comes from it'),
    https: z.boolean().optional(),
    unique: z.boolean().optional(),
    bot: z.boolean().optional(),
    'collect-dnt': z.boolean().optional(),
    page_id: optionalText(128),
    session_id: optionalText(128),
    duration: z.number().min(0).max(86400).optional().describe('Seconds'),
    scrolled: z.number().min(0).max(100).optional().describe('Percent'),
    viewport_width: size(),
    viewport_height: size(),
    screen_width: size(),
    screen_height: size(),
    language: optionalText(64),
    os_name: optionalText(64),
    os_version: optionalText(64),
    brands: z
      .union([z.string().max(512), z.array(z.object({ brand: z.string(), version: z.string() }))])
      .optional()
      .describe('Client hints: "Brand;version,Brand;version" or the JSON list of {brand, version} (as text, or a list on JSON routes); GREASE brands are skipped; brands naming no known browser leave it to the user agent'),
    mobile: z.boolean().optional(),
    brave: z.boolean().optional().describe('Brave (its user agent says Chrome); "true"/"1" on the image routes'),
    duck: z.boolean().optional().describe('DuckDuckGo (its user agent says Safari or Chrome); "true"/"1" on the image routes'),
    version: z.union([z.string(), z.number()]).optional().describe('Script version: accepted and ignored'),
    original_hostname: z.string().optional().describe('The page\'s own hostname when `hostname` overrides it: accepted and ignored'),
    error: z.string().optional().describe('With type error: the message; not stored'),
    utm_source: optionalText(2048),
    utm_medium: optionalText(2048),
    utm_campaign: optionalText(2048),
    utm_term: optionalText(2048),
    utm_content: optionalText(2048),
    source: optionalText(2048),
    ref: optionalText(2048),
    medium: optionalText(2048),
    campaign: optionalText(2048),
    term: optionalText(2048),
    content: optionalText(2048),
  })
  .meta({ id: 'CollectorPayload' });

/** `/noscript.gif` query: `hostname` (like path, https and query) may come from the Referer page instead. */
export const NoscriptPayload = CollectorPayload.partial({ hostname: true }).meta({ id: 'NoscriptPayload' });

const Totals = z.object({
  pageviews: z.number().int(),
  visitors: z.number().int(),
  avg_duration_s: z.number().int().nullable().describe('Median of summed page durations of at least 5 s'),
  avg_scroll: z.number().int().nullable().describe('Mean of per-page maximum scroll'),
});

export const Overview = z
  .object({
    totals: Totals,
    previous: Totals,
    series: z.array(
      z.object({
        t: z.number().int().describe('Bucket start, Unix seconds'),
        pageviews: z.number().int(),
        visitors: z.number().int(),
        duration_s: z.number().int().nullable(),
        scrolled: z.number().int().nullable(),
      }),
    ),
    forecast: z
      .object({ bucket: z.number().int(), pageviews: z.number().int(), visitors: z.number().int(), basis: z.literal('elapsed'), elapsed: z.number() })
      .nullable(),
    live: z.number().int(),
    granularity: z.enum(['hour', 'day', 'week', 'month']),
    previous_range: z.object({ from: z.number().int(), to: z.number().int() }),
  })
  .meta({ id: 'Overview' });

const Ranked = z.object({ name: z.string(), value: z.number().int(), visitors: z.number().int() });

export const OverviewSummary = z
  .object({
    events: z.object({
      totals: z.object({ count: z.number().int(), visitors: z.number().int() }),
      previous: z.object({ count: z.number().int(), visitors: z.number().int() }),
      top: z.array(Ranked),
    }),
    tech: z.object({ devices: z.array(Ranked), browsers: z.array(Ranked), os: z.array(Ranked) }),
    live: z.object({ pages: z.array(z.object({ name: z.string(), visitors: z.number().int() })) }),
  })
  .meta({ id: 'OverviewSummary' });

export const Breakdown = z
  .object({ rows: z.array(Ranked.extend({ last_seen: Timestamp.optional().describe('events only: newest event in the range') })) })
  .meta({ id: 'Breakdown' });

export const Retention = z
  .object({
    duration: z.array(z.object({ s: z.number().int(), share: z.number().min(0).max(1) })),
    scroll: z.array(z.object({ pct: z.number().int(), share: z.number().min(0).max(1) })),
    pageviews_measured: z.number().int(),
  })
  .meta({ id: 'Retention' });

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const SitesSummary = z
  .object({
    sites: z.array(
      z.object({
        hostname: z.string(),
        pinned_at: Timestamp.nullable(),
        live: z.number().int(),
        days: z.array(z.object({ day: Day, pageviews: z.number().int(), visitors: z.number().int() })),
        api_days: z.array(z.object({ day: Day, requests: z.number().int(), server_errors: z.number().int() })).optional(),
      }),
    ),
  })
  .meta({ id: 'SitesSummary' });

// Imports (spec part 2 "Import source" / "Import job", part 4 "Imports"; DESIGN.md §4).

const ConfigField = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(['text', 'password']),
  required: z.boolean(),
  placeholder: z.string().optional(),
  help: z.string().optional(),
});

export const ImportSourceList = z
  .object({ sources: z.array(z.object({ id: z.string(), label: z.string(), description: z.string(), configFields: z.array(ConfigField) })) })
  .meta({ id: 'ImportSources' });

export const ImportJob = z
  .object({
    id: z.uuid(),
    site: z.string(),
    source: z.string(),
    source_label: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
    range_start: Day,
    range_end: Day,
    chunks_total: z.number().int(),
    chunks_done: z.number().int(),
    rows_imported: z.number().int(),
    rows_skipped: z.number().int(),
    error: z.string().nullable(),
    config: z.record(z.string(), z.string()).describe('The configuration without password fields: user_id, source_hostname'),
    created_at: Timestamp,
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: 'ImportJob' });

export const ImportJobList = z.object({ imports: z.array(ImportJob).max(50) }).meta({ id: 'ImportJobList' });

export const CreateImportRequest = z
  .object({
    source: z.literal('simpleanalytics'),
    range_start: Day.describe('Inclusive, UTC'),
    range_end: Day.describe('Inclusive, UTC; not in the future, at most 400 days after range_start counting both ends'),
    config: z.object({
      user_id: z.string(),
      api_key: z.string().describe('Kept encrypted while the job may run; never returned'),
      source_hostname: z.string().describe('The website in Simple Analytics; normalized like a registration'),
    }),
  })
  .meta({ id: 'CreateImportRequest' });

export const RetryImportRequest = z
  .object({
    config: z
      .object({ api_key: z.string().optional() })
      .optional()
      .describe('Replaces the kept API key; needed once it expired (7 days after the job ended)'),
  })
  .meta({ id: 'RetryImportRequest' });

export const OpenApiDocument = z.object({ openapi: z.string() }).loose().describe('An OpenAPI 3.1 document').meta({ id: 'OpenApiDocument' });
