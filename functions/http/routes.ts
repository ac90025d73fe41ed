/**
 * The route table: every product and collector route, written once. The CDK
 * stack creates API Gateway routes from it, the local server dispatches from
 * it, and the OpenAPI document is generated from it.
 */
import * as s from './schemas.ts';
import { outboundRoute } from './outbound-route.ts';
import { createRouteMatcher, matchPath } from './route-match.ts';
import { refusals, invalidInput, signIn, scoped, idOnly, rateLimited, checksRateLimited, siteReader, type Refusable, type ResponseDef, type RouteDef } from './route-def.ts';
import { apiAnalyticsRoutes } from './api-routes.ts';
import { goalRoutes } from './goal-routes.ts';
import { digestRoutes } from './digest-routes.ts';
import { liveRoutes } from './live-routes.ts';
import { reportRoutes } from './report-routes.ts';
import { shareRoutes } from './share-routes.ts';
import { searchRoutes } from './search-routes.ts';
import { crawlerRoutes } from './crawler-routes.ts';
import { exportRoutes } from './export-routes.ts';
import {
  ClaimOvertakenError,
  ClaimRecordMissingError,
  DailyImportLimitError,
  HostnameTakenError,
  ImportActiveError,
  InvalidKindError,
  KeyLimitError,
  KeysForbiddenError,
  NotAvailableOnStoreError,
  NotCancellableError,
  NoActiveClaimError,
  NotRetryableError,
  OwnSiteClaimError,
  PublicNeedsVerificationError,
  SelfRevokeOnlyError,
  SiteLimitError,
  UnknownImportError,
  UnknownKeyError,
  UnknownSiteError,
  UnverifiedClaimError,
  UnverifiedOwnerError,
} from '#domain/errors.ts';
import { KEY_REQUEST_ERRORS } from '#domain/auth.ts';
import { HOSTNAME_ERRORS } from '#domain/hostname.ts';
import { IMPORT_REQUEST_ERRORS, RETRY_CREDENTIAL_ERRORS } from '#domain/imports/create-request.ts';
import { SOURCE_ERROR_FORMS } from '#domain/imports/source.ts';
import { SETTINGS_ERRORS } from '#domain/site.ts';
import { ERASURE_RANGE_ERRORS } from '#domain/data-retention/retention.ts';

export { matchPath };
export { FAILURE_RESPONSES, routeKey } from './route-def.ts';
export type { AuthMode, HttpMethod, ResponseDef, RouteDef, RouteGroup, Scope } from './route-def.ts';

const productRoutes: RouteDef[] = [
  {
    method: 'ANY',
    path: '/healthz',
    group: 'meta',
    auth: 'none',
    summary: 'Liveness: 200 text ok for GET and HEAD, 400 for other methods. No storage query.',
    responses: { 200: { description: 'ok', schema: s.PlainText, contentType: 'text/plain' }, 400: { description: 'method not allowed', schema: s.PlainText, contentType: 'text/plain' } },
  },
  {
    method: 'GET',
    path: '/api/openapi.json',
    group: 'meta',
    auth: 'none',
    summary: 'This API description (OpenAPI 3.1).',
    responses: { 200: { description: 'OpenAPI document', schema: s.OpenApiDocument } },
  },
  {
    method: 'GET',
    path: '/api/me',
    group: 'account',
    auth: 'account',
    summary: 'The caller: account id, credential kind, scopes and site count. Any key scope works.',
    responses: { 200: { description: 'caller', schema: s.Me }, ...refusals(...signIn) },
  },
  {
    method: 'POST',
    path: '/api/management-keys',
    group: 'account',
    auth: 'id_token',
    summary: 'Create a management key (ID token only). The secret is returned once.',
    request: s.CreateManagementKeyRequest,
    responses: {
      201: { description: 'created', schema: s.CreatedManagementKey },
      ...refusals(invalidInput(KEY_REQUEST_ERRORS), KeyLimitError, ...idOnly),
    },
  },
  {
    method: 'GET',
    path: '/api/management-keys',
    group: 'account',
    auth: 'account',
    scope: 'read',
    summary: "The account's management keys, newest first, without secrets.",
    responses: { 200: { description: 'keys', schema: s.ManagementKeyList }, ...refusals(...scoped('read')) },
  },
  {
    method: 'DELETE',
    path: '/api/management-keys/self',
    group: 'account',
    auth: 'account',
    summary: 'Revoke the management key that signs this request.',
    responses: { 200: { description: 'revoked', schema: s.RevokedKey }, ...refusals(...signIn, SelfRevokeOnlyError, ...rateLimited) },
  },
  {
    method: 'DELETE',
    path: '/api/management-keys/{id}',
    group: 'account',
    auth: 'account',
    scope: 'manage',
    summary: 'Revoke one of the account’s management keys (ID token or manage key).',
    responses: { 200: { description: 'revoked', schema: s.RevokedKey }, ...refusals(...scoped('manage'), UnknownKeyError, ...rateLimited) },
  },
  {
    method: 'GET',
    path: '/api/sites',
    group: 'sites',
    auth: 'account',
    scope: 'read',
    summary: "The caller's sites: pinned first (most recent pin first), then by creation time.",
    responses: { 200: { description: 'sites', schema: s.SiteList }, ...refusals(...scoped('read')) },
  },
  {
    method: 'POST',
    path: '/api/sites',
    group: 'sites',
    auth: 'account',
    scope: 'manage',
    summary: 'Register a hostname to the caller (201), or return the caller’s existing registration (200).',
    request: s.CreateSiteRequest,
    responses: {
      200: { description: 'already registered to this account', schema: s.CreatedSite },
      201: { description: 'registered', schema: s.CreatedSite },
      ...refusals(invalidInput(HOSTNAME_ERRORS), InvalidKindError, SiteLimitError, ...scoped('manage'), HostnameTakenError, ...rateLimited),
    },
  },
  {
    method: 'GET',
    path: '/api/sites/{hostname}',
    group: 'sites',
    auth: 'site',
    scope: 'read',
    summary: 'Site metadata; owner-only fields for the owner; anonymous for verified public sites.',
    responses: { 200: { description: 'site', schema: s.Site }, ...refusals(...siteReader) },
  },
  {
    method: 'PATCH',
    path: '/api/sites/{hostname}',
    group: 'sites',
    auth: 'account',
    scope: 'manage',
    summary: 'Update display name, public sharing, reports mode, pin and retention.',
    request: s.UpdateSiteRequest,
    responses: {
      200: { description: 'updated', schema: s.UpdatedSite },
      ...refusals(invalidInput(SETTINGS_ERRORS), PublicNeedsVerificationError, ...scoped('manage'), UnknownSiteError, ...rateLimited),
    },
  },
  {
    method: 'DELETE',
    path: '/api/sites/{hostname}',
    group: 'sites',
    auth: 'id_token',
    summary: 'Delete the registration and its owner data (ID token only). Collected analytics remain.',
    responses: { 200: { description: 'deleted', schema: s.DeletedSite }, ...refusals(...idOnly, UnknownSiteError) },
  },
  {
    method: 'DELETE',
    path: '/api/sites/{hostname}/data',
    group: 'data',
    auth: 'id_token',
    summary: "Erase the site's rows of the days from..to (YYYY-MM-DD, UTC, included) from every series (ID token only).",
    responses: {
      200: { description: 'erased', schema: s.ErasedData },
      ...refusals(invalidInput(ERASURE_RANGE_ERRORS), ...idOnly, UnknownSiteError, NotAvailableOnStoreError),
    },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/verify',
    group: 'sites',
    auth: 'account',
    scope: 'manage',
    summary:
      "Run ownership verification now (this service's script or the verify token on the home page, or a DNS TXT record); returns the Site and the check's outcome.",
    responses: { 200: { description: 'site after the check, passed or not', schema: s.VerifiedSite }, ...refusals(...scoped('manage'), UnknownSiteError, ...rateLimited, checksRateLimited) },
  },
  {
    method: 'GET',
    path: '/api/sites/{hostname}/setup',
    group: 'sites',
    auth: 'account',
    scope: 'read',
    summary: 'Installation state: verified, whether the script is on the page now and why not, the last recorded check, last beacon time.',
    responses: { 200: { description: 'setup state', schema: s.SiteSetup }, ...refusals(...scoped('read'), UnknownSiteError) },
  },
  {
    method: 'GET',
    path: '/api/sites/{hostname}/icon',
    group: 'sites',
    auth: 'site',
    scope: 'read',
    summary: "The site's icon (PNG, ICO, GIF, JPEG or WebP, at most 64 KiB; an SVG placeholder when none), with the metadata read's rules: anonymous for verified public sites.",
    responses: { 200: { description: 'image', contentType: 'image/*' }, ...refusals(...siteReader) },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/claim',
    group: 'sites',
    auth: 'id_token',
    summary: "Start claiming another account's verified hostname by DNS (ID token only): publish the answer's txt_record (tinytrack-claim=<claim_token>) on the hostname within 7 days, then call …/claim/verify. One active claim per hostname and account: asking again gives it back (200).",
    responses: {
      200: { description: 'the active claim the caller already has', schema: s.SiteClaim },
      201: { description: 'a new claim', schema: s.SiteClaim },
      ...refusals(...idOnly, UnknownSiteError, OwnSiteClaimError, UnverifiedClaimError),
    },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/claim/verify',
    group: 'sites',
    auth: 'id_token',
    summary: "Look for the claim's TXT record now (ID token only). When it is on the hostname, the hostname moves to the caller as a new, verified, private registration with a new verify token; the previous registration ends as after a delete (its import jobs and claims removed, its collected rows kept with it and not shown to the caller). A delete or another claim that lands first wins (404, 409). Counted with POST …/verify against the limit of explicit checks.",
    responses: {
      201: { description: "the caller's new registration", schema: s.Site },
      ...refusals(...idOnly, UnknownSiteError, NoActiveClaimError, OwnSiteClaimError, UnverifiedClaimError, ClaimRecordMissingError, ClaimOvertakenError, SiteLimitError, checksRateLimited),
    },
  },
];

const collectorText = (description: string): ResponseDef => ({ description, schema: s.PlainText, contentType: 'text/plain' });
const beaconResponses = {
  200: collectorText('ok: received (not a durability confirmation); also when nothing is stored (DNT, unknown or unverified site)'),
  400: collectorText('malformed input; the text names the field'),
  413: collectorText('body over 64 KiB'),
};
const imageResponses = {
  200: { description: 'a 1×1 GIF; HEAD records nothing', contentType: 'image/gif' },
  400: collectorText('validation failure naming the field, or a method other than GET/HEAD'),
};

const collectorRoutes: RouteDef[] = [
  outboundRoute(collectorText),
  {
    method: 'ANY',
    path: '/latest.js',
    group: 'collector',
    auth: 'none',
    summary: 'The tracker script (GET, HEAD); other methods 400. Collector CORS for any origin.',
    responses: { 200: { description: 'JavaScript', contentType: 'application/javascript' }, 400: collectorText('method not allowed') },
  },
  {
    method: 'ANY',
    path: '/simple.gif',
    group: 'collector',
    auth: 'none',
    summary: 'Image beacon: the collector payload as query parameters; `hostname` required; `metadata` URL-encoded JSON.',
    request: s.CollectorPayload,
    responses: imageResponses,
  },
  {
    method: 'ANY',
    path: '/noscript.gif',
    group: 'collector',
    auth: 'none',
    summary: 'Image beacon for pages without JavaScript: hostname, path, https and query default to the page URL in Referer.',
    request: s.NoscriptPayload,
    responses: imageResponses,
  },
  {
    method: 'POST',
    path: '/events',
    group: 'collector',
    auth: 'none',
    summary: 'One pageview or custom event as a JSON object (Content-Type ignored). DNT / X-Do-Not-Track: 1 skip storage.',
    request: s.CollectorPayload,
    responses: beaconResponses,
  },
  {
    method: 'POST',
    path: '/append',
    group: 'collector',
    auth: 'none',
    summary: 'Duration and scroll for a pageview, linked by original_id; each append has its own id.',
    request: s.CollectorPayload,
    responses: beaconResponses,
  },
];


const importJobErrors: readonly Refusable[] = [...idOnly, UnknownSiteError, UnknownImportError];

const importRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/import-sources',
    group: 'imports',
    auth: 'account',
    scope: 'read',
    summary: 'The import sources and their configuration fields (one: Simple Analytics). Never credentials.',
    responses: { 200: { description: 'sources', schema: s.ImportSourceList }, ...refusals(...scoped('read')) },
  },
  {
    method: 'GET',
    path: '/api/sites/{hostname}/imports',
    group: 'imports',
    auth: 'account',
    scope: 'read',
    summary: "The site's import jobs, newest first, at most 50, all statuses. Owner ID token or read key; auth before the site lookup.",
    responses: { 200: { description: 'jobs', schema: s.ImportJobList }, ...refusals(...scoped('read'), UnknownSiteError) },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/imports',
    group: 'imports',
    auth: 'id_token',
    summary:
      'Start an import (owner ID token only). Checks in order: site owner (404), verified (403), dates, source and configuration (400), ' +
      'daily limit (429), another active job (409), credential test (400). 201 means queued, not finished.',
    request: s.CreateImportRequest,
    responses: {
      201: { description: 'queued', schema: s.ImportJob },
      ...refusals(
        invalidInput([...IMPORT_REQUEST_ERRORS, ...SOURCE_ERROR_FORMS]),
        ...idOnly,
        KeysForbiddenError,
        UnverifiedOwnerError,
        UnknownSiteError,
        ImportActiveError,
        DailyImportLimitError,
      ),
    },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/imports/{jobId}/cancel',
    group: 'imports',
    auth: 'id_token',
    summary: 'Cancel a queued or running import (owner ID token only); the chunk in flight finishes first.',
    responses: { 200: { description: 'cancelled', schema: s.ImportJob }, ...refusals(...importJobErrors, NotCancellableError) },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/imports/{jobId}/retry',
    group: 'imports',
    auth: 'id_token',
    summary: 'Queue a failed or cancelled import again (owner ID token only); only unfinished chunks run. Optional new credentials.',
    request: s.RetryImportRequest,
    responses: {
      200: { description: 'queued again', schema: s.ImportJob },
      ...refusals(invalidInput(RETRY_CREDENTIAL_ERRORS), ...importJobErrors, NotRetryableError, ImportActiveError),
    },
  },
];

export const routes: readonly RouteDef[] = [...productRoutes, ...collectorRoutes, ...reportRoutes, ...apiAnalyticsRoutes, ...goalRoutes, ...digestRoutes, ...liveRoutes, ...crawlerRoutes, ...exportRoutes, ...importRoutes, ...searchRoutes, ...shareRoutes(reportRoutes.filter((r) => r.auth === 'site'))];

/**
 * The route for a request, preferring literal segments over parameters the way
 * API Gateway does (`/api/management-keys/self` before `/{id}`); the same
 * matcher the group handlers use for Function URL events.
 */
export const findRoute = createRouteMatcher(routes);
