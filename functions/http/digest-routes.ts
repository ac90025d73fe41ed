/**
 * The e-mail digest routes of the route table (issue 38), all in the
 * `digests` group: a site's e-mail reports (owner only, also for public
 * sites), the account's report defaults and workspace digest with its
 * preview, the test sends (ID token only), and the unsubscribe links (no
 * sign-in: the link's signature is the credential). Listed by
 * functions/http/routes.ts.
 */
import * as s from './digest-schemas.ts';
import { crudRoutes } from './goal-routes.ts';
import { idOnly, invalidInput, rateLimited, refusals, scoped, type RouteDef } from './route-def.ts';
import { DIGEST_ERRORS } from '#domain/digests/email-report.ts';
import { EmailReportLimitError, MailNotConfiguredError, UnknownEmailReportError, UnknownSiteError } from '#domain/errors.ts';

const account = { group: 'digests', auth: 'account' } as const;
const UNSUBSCRIBE_QUERY = { token: 'Required: the token of the link in the e-mail' };
const page = (description: string) => ({ description, contentType: 'text/html' });

export const digestRoutes: readonly RouteDef[] = [
  ...crudRoutes({
    group: 'digests',
    path: '/api/sites/{hostname}/reports',
    noun: 'e-mail reports',
    list: s.EmailReportList,
    record: s.EmailReport,
    create: s.CreateEmailReportRequest,
    update: s.UpdateEmailReportRequest,
    deleted: s.DeletedEmailReport,
    errors: DIGEST_ERRORS,
    created: [EmailReportLimitError],
    unknown: UnknownEmailReportError,
    summary: {
      list: "The site's e-mail reports, oldest first.",
      create:
        'Create an e-mail report: the site’s traffic mailed at 07:00 in its time zone, daily, weekly (Mondays) or monthly (the 1st), each for the period before. ' +
        'Fields left out follow the account’s report defaults. At most 10 per site.',
      update: 'Change an e-mail report (null: follow the default again; enabled false pauses it).',
    },
  }),
  {
    method: 'POST',
    path: '/api/sites/{hostname}/reports/{id}/test',
    group: 'digests',
    auth: 'id_token',
    summary: "Send the report for its last complete period to its recipients now (ID token only). Its schedule is unchanged.",
    responses: { 200: { description: 'sent', schema: s.DigestSent }, ...refusals(...idOnly, UnknownSiteError, UnknownEmailReportError, invalidInput([DIGEST_ERRORS[5]]), MailNotConfiguredError) },
  },
  { ...account, method: 'GET', path: '/api/reports/defaults', scope: 'read', summary: 'The account’s report defaults (weekly, UTC and no recipients until set).', responses: { 200: { description: 'defaults', schema: s.ReportDefaults }, ...refusals(...scoped('read')) } },
  {
    ...account,
    method: 'PUT',
    path: '/api/reports/defaults',
    scope: 'manage',
    summary: 'Change the account’s report defaults; every e-mail report that follows a field takes its new value.',
    request: s.UpdateReportDefaultsRequest,
    responses: { 200: { description: 'defaults', schema: s.ReportDefaults }, ...refusals(invalidInput(DIGEST_ERRORS), ...scoped('manage'), ...rateLimited) },
  },
  { ...account, method: 'GET', path: '/api/reports/workspace', scope: 'read', summary: 'The account’s workspace digest: one e-mail covering several sites.', responses: { 200: { description: 'workspace digest', schema: s.WorkspaceDigest }, ...refusals(...scoped('read')) } },
  {
    ...account,
    method: 'PUT',
    path: '/api/reports/workspace',
    scope: 'manage',
    summary: 'Change the workspace digest: enabled, frequency, tz, recipients, and sites ("all" or hostnames of the account’s sites).',
    request: s.UpdateWorkspaceDigestRequest,
    responses: { 200: { description: 'workspace digest', schema: s.WorkspaceDigest }, ...refusals(invalidInput(DIGEST_ERRORS), ...scoped('manage'), ...rateLimited) },
  },
  {
    ...account,
    method: 'GET',
    path: '/api/reports/workspace/preview',
    scope: 'read',
    summary: 'The workspace digest as its first recipient would get it for its last complete period.',
    responses: { 200: { description: 'preview', schema: s.DigestPreview }, ...refusals(...scoped('read')) },
  },
  {
    method: 'POST',
    path: '/api/reports/workspace/test',
    group: 'digests',
    auth: 'id_token',
    summary: 'Send the workspace digest for its last complete period to its recipients now (ID token only).',
    responses: { 200: { description: 'sent', schema: s.DigestSent }, ...refusals(...idOnly, invalidInput([DIGEST_ERRORS[5]]), MailNotConfiguredError) },
  },
  {
    method: 'GET',
    path: '/api/reports/unsubscribe',
    group: 'digests',
    auth: 'none',
    summary: 'The page an unsubscribe link opens: it asks to confirm (mail scanners that follow links unsubscribe nobody).',
    query: UNSUBSCRIBE_QUERY,
    responses: { 200: page('the confirmation page, or that the address is already unsubscribed'), 400: page('the link is not valid') },
  },
  {
    method: 'POST',
    path: '/api/reports/unsubscribe',
    group: 'digests',
    auth: 'none',
    summary: "Removes the link's one recipient from its report or digest (a digest left with none is disabled); used again, the link finds it gone.",
    query: UNSUBSCRIBE_QUERY,
    responses: { 200: page('unsubscribed'), 400: page('the link is not valid') },
  },
];


