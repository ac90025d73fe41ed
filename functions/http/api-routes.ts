/**
 * The API analytics routes of the route table (issue 36): site API keys (the
 * `sites` group), POST /api/ingest (its own `ingest` group) and the API
 * reports (the `reports` group). Listed by functions/http/routes.ts.
 */
import type { z } from 'zod';
import * as s from './api-schemas.ts';
import { RevokedKey } from './schemas.ts';
import { idOnly, invalidInput, rateLimited, refusals, reportQuery, scoped, type Refusable, type RouteDef } from './route-def.ts';
import { ALERT_ERRORS } from '#domain/alerts/rule.ts';
import {
  AlertLimitError,
  IngestNeedsVerificationError,
  MailNotConfiguredError,
  UnknownAlertError,
  NotAvailableOnStoreError,
  ServiceSiteMismatchError,
  ServiceSiteRequiredError,
  SiteKeyLimitError,
  SiteKeysNeedVerificationError,
  StoreUnavailableError,
  UnknownApiKeyError,
  UnknownDimensionError,
  UnknownKeyError,
  UnknownSiteError,
  UnverifiedOwnerError,
} from '#domain/errors.ts';
import { SITE_KEY_REQUEST_ERRORS } from '#domain/api-requests/site-api-key.ts';
import { INGEST_ERRORS } from '#domain/api-requests/ingest-batch.ts';
import { REPORT_QUERY_ERRORS } from '#domain/reports/query.ts';

/** Site API keys, and the route they authenticate. */
const keyAndIngestRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/sites/{hostname}/keys',
    group: 'sites',
    auth: 'account',
    scope: 'read',
    summary: "The site's API keys, newest first, without secrets (owner only, also for public sites).",
    responses: { 200: { description: 'keys', schema: s.SiteApiKeyList }, ...refusals(...scoped('read'), UnknownSiteError) },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/keys',
    group: 'sites',
    auth: 'account',
    scope: 'manage',
    summary: 'Create a site API key (tt_ + 48 hex) for POST /api/ingest; the secret is returned once. API sites may create keys before verification, websites once verified. At most 20 per site.',
    request: s.CreateSiteApiKeyRequest,
    responses: {
      201: { description: 'created', schema: s.CreatedSiteApiKey },
      ...refusals(invalidInput(SITE_KEY_REQUEST_ERRORS), SiteKeyLimitError, ...scoped('manage'), SiteKeysNeedVerificationError, UnknownSiteError, ...rateLimited),
    },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/keys/{id}/rotate',
    group: 'sites',
    auth: 'account',
    scope: 'manage',
    summary: 'Replace a site API key\'s secret: the new one is returned once, the old one stops working (other instances within 30 s).',
    responses: { 200: { description: 'rotated', schema: s.RotatedSiteApiKey }, ...refusals(...scoped('manage'), UnknownSiteError, UnknownKeyError, ...rateLimited) },
  },
  {
    method: 'DELETE',
    path: '/api/sites/{hostname}/keys/{id}',
    group: 'sites',
    auth: 'account',
    scope: 'manage',
    summary: 'Revoke a site API key (other instances stop accepting it within 30 s).',
    responses: { 200: { description: 'revoked', schema: RevokedKey }, ...refusals(...scoped('manage'), UnknownSiteError, UnknownKeyError, ...rateLimited) },
  },
  {
    method: 'POST',
    path: '/api/ingest',
    group: 'ingest',
    auth: 'api_key',
    scope: 'ingest',
    summary:
      'Request metrics from your API: 1 to 1,000 items, at most 1 MiB; timestamps are the arrival time. A site API key for its own site, or a management key with ' +
      'scope ingest and the site in X-Service-Site. 202 once durably received; an invalid item refuses the whole batch, naming its index and field. Not rate limited.',
    request: s.IngestRequest,
    responses: {
      202: { description: 'accepted: the rows are durably received (not yet in reports)', schema: s.IngestAccepted },
      ...refusals(
        invalidInput(INGEST_ERRORS),
        ServiceSiteRequiredError,
        ...scoped('ingest'),
        UnknownApiKeyError,
        IngestNeedsVerificationError,
        ServiceSiteMismatchError,
        UnknownSiteError,
        StoreUnavailableError,
        NotAvailableOnStoreError,
      ),
    },
  },
];

const apiReportQuery = {
  ...reportQuery,
  filter: 'Clauses joined by ";": route, method, status (an exact code or a class such as 5xx) or consumer, each dim:value (equals) or dim!value (not equals); values URL-encoded',
};

/** API reports: owner only, also for public sites; API sites before verification, websites once verified. */
const apiStats = (path: string, summary: string, schema: z.ZodType, query: Record<string, string> = {}, errors: readonly Refusable[] = []): RouteDef => ({
  method: 'GET',
  path,
  group: 'reports',
  auth: 'account',
  scope: 'read',
  summary: `${summary} Owner only (ID token or read key), also for public sites.`,
  query: { ...apiReportQuery, ...query },
  responses: {
    200: { description: 'report', schema },
    ...refusals(invalidInput(REPORT_QUERY_ERRORS), ...errors, ...scoped('read'), UnknownSiteError, UnverifiedOwnerError, NotAvailableOnStoreError),
  },
});

const apiReportRoutes: RouteDef[] = [
  apiStats('/api/sites/{hostname}/api/overview', 'API requests: totals (errors, error rate, p50/p95/p99 latency, bytes out), previous period and zero-filled series.', s.ApiOverview),
  apiStats(
    '/api/sites/{hostname}/api/breakdown',
    'API requests by route, status, method or consumer, by requests descending then name (requests without a consumer are left out of consumers).',
    s.ApiBreakdown,
    { dim: 'Required: routes, statuses, methods, consumers', limit: 'Default 10, clamped to 1..1000' },
    [UnknownDimensionError],
  ),
];


const ruleErrors: readonly Refusable[] = [UnknownSiteError, UnknownAlertError];

/** Alert rules: owner only, also for public sites. */
const alertRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/api/sites/{hostname}/alerts',
    group: 'alerts',
    auth: 'account',
    scope: 'read',
    summary: "The site's alert rules with their state and last changes, oldest first.",
    responses: { 200: { description: 'rules', schema: s.AlertRuleList }, ...refusals(...scoped('read'), UnknownSiteError) },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/alerts',
    group: 'alerts',
    auth: 'account',
    scope: 'manage',
    summary:
      'Create an alert rule, checked every minute over its window; a mail goes out when it fires and when it resolves. At most 20 per site. ' +
      "With a management key `recipients` is required; with an ID token it defaults to the token's e-mail.",
    request: s.CreateAlertRuleRequest,
    responses: { 201: { description: 'created', schema: s.AlertRule }, ...refusals(invalidInput(ALERT_ERRORS), AlertLimitError, ...scoped('manage'), UnknownSiteError, ...rateLimited) },
  },
  {
    method: 'PATCH',
    path: '/api/sites/{hostname}/alerts/{id}',
    group: 'alerts',
    auth: 'account',
    scope: 'manage',
    summary: 'Change an alert rule (any of its fields; enabled false pauses it). Its state is kept.',
    request: s.UpdateAlertRuleRequest,
    responses: { 200: { description: 'updated', schema: s.AlertRule }, ...refusals(invalidInput(ALERT_ERRORS), ...scoped('manage'), ...ruleErrors, ...rateLimited) },
  },
  {
    method: 'DELETE',
    path: '/api/sites/{hostname}/alerts/{id}',
    group: 'alerts',
    auth: 'account',
    scope: 'manage',
    summary: 'Delete an alert rule.',
    responses: { 200: { description: 'deleted', schema: s.DeletedAlertRule }, ...refusals(...scoped('manage'), ...ruleErrors, ...rateLimited) },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/alerts/{id}/test',
    group: 'alerts',
    auth: 'id_token',
    summary: "Send a test mail to the rule's recipients now (ID token only).",
    responses: { 200: { description: 'sent', schema: s.AlertTestSent }, ...refusals(...idOnly, ...ruleErrors, MailNotConfiguredError) },
  },
];

export const apiAnalyticsRoutes: readonly RouteDef[] = [...keyAndIngestRoutes, ...apiReportRoutes, ...alertRoutes];
