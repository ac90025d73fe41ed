/**
 * The Search Console routes of the route table (issue 41), all in the
 * `search` group: the consent flow and the link (ID token only), the sync
 * (`manage`) and the stats (`read`, owner only also for public sites).
 * Listed by functions/http/routes.ts.
 */
import { z } from 'zod';
import { Timestamp } from './schemas.ts';
import { idOnly, invalidInput, refusals, scoped, siteReader, type RouteDef } from './route-def.ts';
import {
  GoogleGrantRevokedError,
  GoogleNotConfiguredError,
  GooglePermissionError,
  GoogleQuotaError,
  GoogleUnavailableError,
  NoSearchPropertyError,
  NotAvailableOnStoreError,
  OAuthStateError,
  SearchNotLinkedError,
  UnknownDimensionError,
  UnknownSearchPropertyError,
  UnknownSiteError,
} from '#domain/errors.ts';
import { INVALID_RANGE } from '#domain/reports/query.ts';
import { PROPERTY_REQUIRED } from '#domain/search-console/search-console.ts';

const Link = z
  .object({
    property: z.string().nullable().describe('The Search Console property (https://example.com/ or sc-domain:example.com); null until one is chosen'),
    linked_at: Timestamp,
    last_sync_at: Timestamp.nullable(),
    last_error: z.string().nullable().describe('The last sync’s error text; null when it succeeded'),
  })
  .meta({ id: 'SearchConsoleLink' });
const Figures = { clicks: z.number().int(), impressions: z.number().int(), ctr: z.number().describe('clicks / impressions; 0 without impressions'), position: z.number().nullable().describe('Average position weighted by impressions') };
const SearchStats = z
  .object({
    from: z.string(),
    to: z.string(),
    dim: z.enum(['queries', 'pages', 'countries', 'devices']),
    rows: z.array(z.object({ name: z.string(), ...Figures })),
    totals: z.object(Figures).describe('The whole site’s figures (anonymized queries included, unlike the query rows)'),
    series: z.array(z.object({ date: z.string(), clicks: z.number().int(), impressions: z.number().int() })).describe('Days with data, oldest first'),
    link: Link.nullable(),
  })
  .meta({ id: 'SearchStats' });

const google = [GoogleNotConfiguredError, GoogleGrantRevokedError, GoogleQuotaError, GooglePermissionError, GoogleUnavailableError] as const;
const base = { group: 'search' } as const;
const SITE = '/api/sites/{hostname}/gsc';

export const searchRoutes: readonly RouteDef[] = [
  {
    ...base,
    method: 'GET',
    path: '/api/import-oauth/google/start',
    auth: 'id_token',
    summary: 'Start linking Search Console to a site (ID token only): the Google consent URL to open (state bound to the caller, 10 minutes, single use; PKCE S256).',
    query: { hostname: 'Required: the site to link' },
    responses: { 200: { description: 'consent', schema: z.object({ url: z.string(), expires_in: z.number().int() }).meta({ id: 'GoogleConsent' }) }, ...refusals(...idOnly, UnknownSiteError, GoogleNotConfiguredError) },
  },
  {
    ...base,
    method: 'GET',
    path: '/api/import-oauth/google/callback',
    auth: 'id_token',
    summary: 'Finish the consent (ID token only, the user who started it): Google’s code is exchanged and its refresh token sealed; the link then waits for a property.',
    query: { code: 'Required: the code Google sent back', state: 'Required: the state Google sent back' },
    responses: {
      200: { description: 'linked', schema: z.object({ hostname: z.string(), link: Link }).meta({ id: 'GoogleConsentDone' }) },
      ...refusals(...idOnly, OAuthStateError, UnknownSiteError, ...google),
    },
  },
  {
    ...base,
    method: 'GET',
    path: `${SITE}/properties`,
    auth: 'id_token',
    summary: 'The Search Console properties the linked Google account can read (ID token only).',
    responses: {
      200: { description: 'properties', schema: z.object({ properties: z.array(z.object({ property: z.string(), permission: z.string() })), link: Link }).meta({ id: 'SearchProperties' }) },
      ...refusals(...idOnly, UnknownSiteError, SearchNotLinkedError, ...google),
    },
  },
  {
    ...base,
    method: 'POST',
    path: `${SITE}/link`,
    auth: 'id_token',
    summary: 'Choose the property the site’s data comes from (ID token only); the next sync pulls its last 16 months.',
    request: z.object({ property: z.string().max(2048) }).meta({ id: 'SearchLinkRequest' }),
    responses: {
      200: { description: 'linked', schema: z.object({ link: Link }).meta({ id: 'SearchLinked' }) },
      ...refusals(...idOnly, invalidInput([PROPERTY_REQUIRED]), UnknownSiteError, SearchNotLinkedError, UnknownSearchPropertyError, ...google),
    },
  },
  {
    ...base,
    method: 'DELETE',
    path: `${SITE}/link`,
    auth: 'id_token',
    summary: 'Unlink Search Console (ID token only): the grant is revoked at Google and the sealed token deleted. Stored figures stay.',
    responses: { 200: { description: 'unlinked', schema: z.object({ deleted: z.literal(true) }).meta({ id: 'SearchUnlinked' }) }, ...refusals(...idOnly, UnknownSiteError, SearchNotLinkedError) },
  },
  {
    ...base,
    method: 'POST',
    path: `${SITE}/sync`,
    auth: 'account',
    scope: 'manage',
    summary:
      'Pull the days since the last sync now (the last three again), month by month, for up to 20 s: `complete` false means months are left, which the next call (or the daily sync) pulls. Also runs daily. A failure is answered and kept as the link’s last_error.',
    responses: {
      200: { description: 'synced', schema: z.object({ link: Link, complete: z.boolean().describe('Every day up to yesterday is stored; false: call again to pull the rest') }).meta({ id: 'SearchSynced' }) },
      ...refusals(...scoped('manage'), UnknownSiteError, SearchNotLinkedError, NoSearchPropertyError, NotAvailableOnStoreError, ...google),
    },
  },
  {
    ...base,
    method: 'GET',
    path: SITE,
    auth: 'owner',
    scope: 'read',
    summary: 'Search Console figures of the site (owner only, also for public sites): rows of one dimension, totals, a daily series and the link.',
    query: {
      from: 'First day, YYYY-MM-DD (Google’s days, Pacific time); default 27 days before to',
      to: 'Last day, YYYY-MM-DD, included; default today (UTC). At most 500 days',
      dim: 'queries (default), pages, countries or devices',
      limit: 'Rows, 1 to 1000; default 100',
    },
    responses: { 200: { description: 'stats', schema: SearchStats }, ...refusals(invalidInput([INVALID_RANGE]), UnknownDimensionError, ...siteReader, NotAvailableOnStoreError) },
  },
];
