/**
 * The traffic report routes of the route table (spec part 4 "Reports"), in the
 * `reports` group: public for verified public sites, else the owner's. Listed
 * by functions/http/routes.ts.
 */
import type { z } from 'zod';
import * as s from './schemas.ts';
import { invalidInput, refusals, siteReader, reportQuery, scoped, type Refusable, type RouteDef } from './route-def.ts';
import { NotAvailableOnStoreError, UnknownDimensionError, UnverifiedOwnerError } from '#domain/errors.ts';
import { BREAKDOWN_DIMS, INVALID_INTERVAL, INVALID_TIMEZONE, REPORT_QUERY_ERRORS } from '#domain/reports/query.ts';

interface StatsOptions {
  query?: Record<string, string>;
  /** Owners' and non-owners' reads alike are no-store when false. */
  edgeCached?: boolean;
  /** Refusals beyond the common query errors. */
  errors?: readonly Refusable[];
}
const stats = (path: string, summary: string, schema: z.ZodType, { query = {}, edgeCached = true, errors = [] }: StatsOptions = {}): RouteDef => ({
  method: 'GET',
  path,
  group: 'reports',
  auth: 'site',
  scope: 'read',
  summary: `${summary} Public for verified public sites${edgeCached ? ' (Cache-Control: public, max-age=60 for non-owners)' : ''}.`,
  query: { ...reportQuery, ...query },
  responses: {
    200: { description: 'report', schema },
    // A report the deployment's event store does not answer (a Timestream deployment, README): 501.
    ...refusals(invalidInput(REPORT_QUERY_ERRORS), ...errors, ...siteReader, UnverifiedOwnerError, NotAvailableOnStoreError),
  },
});

export const reportRoutes: readonly RouteDef[] = [
  stats('/api/sites/{hostname}/overview', 'Totals, previous period, zero-filled series, forecast and live count.', s.Overview, {
    query: {
      interval:
        'The series buckets: day, week (local Mondays) or month (the local 1st), each bucket’s visitors distinct within it. ' +
        'Default: hours for ranges up to 48 hours, else days',
    },
    errors: [invalidInput([INVALID_INTERVAL])],
  }),
  stats('/api/sites/{hostname}/overview/summary', 'Event totals and top events, devices, browsers, OS, and live top pages.', s.OverviewSummary, {
    query: { limit: 'List length: default 5, clamped to 1..20, fractions round down; zero or non-numeric give 5' },
  }),
  stats('/api/sites/{hostname}/breakdown', 'Rows for one dimension, by value descending then name.', s.Breakdown, {
    query: {
      dim: `Required: ${BREAKDOWN_DIMS.join(', ')}. exit_pages: per visit (a visitor hash's day), the path of its last pageview; rows without a visitor hash add none; not on Timestream (501)`,
      limit: 'Default 10, clamped to 1..1000',
      tz: 'Ignored',
    },
    errors: [UnknownDimensionError],
  }),
  stats('/api/sites/{hostname}/retention', 'Engagement retention: share of pageviews lasting or scrolling at least each threshold.', s.Retention, { edgeCached: false }),
  {
    method: 'GET',
    path: '/api/sites/summary',
    group: 'reports',
    auth: 'account',
    scope: 'read',
    summary: 'Every verified website and API site of the caller with sparse daily rollups from a rolling 31-day cutoff and a live count.',
    query: { tz: 'IANA timezone of the days; default UTC' },
    responses: { 200: { description: 'summary', schema: s.SitesSummary }, ...refusals(invalidInput([INVALID_TIMEZONE]), ...scoped('read'), NotAvailableOnStoreError) },
  },
];
