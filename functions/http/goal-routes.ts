/**
 * The goals routes of the route table (issue 37): goals, funnels and their
 * stats (the `goals` group), and an event's metadata (the `reports` group).
 * Owner only, also for public sites. Listed by functions/http/routes.ts.
 */
import type { z } from 'zod';
import * as s from './goal-schemas.ts';
import { invalidInput, rateLimited, refusals, reportQuery, scoped, siteReader, type Refusable, type RouteDef, type RouteGroup } from './route-def.ts';
import { FUNNEL_ERRORS, GOAL_ERRORS } from '#domain/goals/goal.ts';
import {
  FunnelLimitError,
  GoalExistsError,
  GoalLimitError,
  NotAvailableOnStoreError,
  UnknownFunnelError,
  UnknownGoalError,
  UnknownSiteError,
  UnverifiedOwnerError,
} from '#domain/errors.ts';
import { REPORT_QUERY_ERRORS } from '#domain/reports/query.ts';

const OWNER_ONLY = 'Owner only (ID token or a management key), also for public sites; a read without a valid credential is 404 unknown site.';

/** A list, create, change and delete of one kind of record under the site, served by `group` (the goals'). */
export function crudRoutes(o: {
  group?: RouteGroup;
  path: string;
  noun: string;
  list: z.ZodType;
  record: z.ZodType;
  create: z.ZodType;
  /** None: the records are not changed, only created and deleted (PATCH left out). */
  update?: z.ZodType;
  deleted: z.ZodType;
  errors: readonly string[];
  created: readonly Refusable[];
  unknown: Refusable;
  summary: { list: string; create: string; update?: string };
}): RouteDef[] {
  const base = { group: o.group ?? 'goals', auth: 'account' } as const;
  const one = `${o.path}/{id}`;
  return [
    { ...base, auth: 'owner', method: 'GET', path: o.path, scope: 'read', summary: `${o.summary.list} ${OWNER_ONLY}`, responses: { 200: { description: o.noun, schema: o.list }, ...refusals(...siteReader) } },
    {
      ...base,
      method: 'POST',
      path: o.path,
      scope: 'manage',
      summary: o.summary.create,
      request: o.create,
      responses: { 201: { description: 'created', schema: o.record }, ...refusals(invalidInput(o.errors), ...o.created, ...scoped('manage'), UnknownSiteError, ...rateLimited) },
    },
    ...(o.update
      ? [
          {
            ...base,
            method: 'PATCH',
            path: one,
            scope: 'manage',
            summary: o.summary.update ?? '',
            request: o.update,
            responses: { 200: { description: 'updated', schema: o.record }, ...refusals(invalidInput(o.errors), ...scoped('manage'), UnknownSiteError, o.unknown, ...rateLimited) },
          } as const,
        ]
      : []),
    {
      ...base,
      method: 'DELETE',
      path: one,
      scope: 'manage',
      summary: `Delete a ${o.noun.replace(/s$/, '')}.`,
      responses: { 200: { description: 'deleted', schema: o.deleted }, ...refusals(...scoped('manage'), UnknownSiteError, o.unknown, ...rateLimited) },
    },
  ];
}

/** A stats read of the goals group: the report query, then the store. */
const statsRoute = (path: string, summary: string, schema: z.ZodType, errors: readonly Refusable[] = []): RouteDef => ({
  method: 'GET',
  path,
  group: 'goals',
  auth: 'owner',
  scope: 'read',
  summary: `${summary} ${OWNER_ONLY}`,
  query: reportQuery,
  responses: {
    200: { description: 'stats', schema },
    ...refusals(invalidInput(REPORT_QUERY_ERRORS), ...siteReader, ...errors, UnverifiedOwnerError, NotAvailableOnStoreError),
  },
});

export const goalRoutes: readonly RouteDef[] = [
  ...crudRoutes({
    path: '/api/sites/{hostname}/goals',
    noun: 'goals',
    list: s.GoalList,
    record: s.Goal,
    create: s.CreateGoalRequest,
    update: s.UpdateGoalRequest,
    deleted: s.DeletedGoal,
    errors: GOAL_ERRORS,
    created: [GoalLimitError, GoalExistsError],
    unknown: UnknownGoalError,
    summary: {
      list: "The site's goals, oldest first.",
      create: 'Create a page goal (a path, exact or with * wildcards) or an event goal (an event name, normalized as collected). At most 50 per site; one per type and match.',
      update: 'Change a goal’s name, type or match.',
    },
  }),
  statsRoute(
    '/api/sites/{hostname}/goals/stats',
    'Per goal its conversions, converted visitor-days and conversion rate over the range, and the same over the previous period.',
    s.GoalStats,
  ),
  ...crudRoutes({
    path: '/api/sites/{hostname}/funnels',
    noun: 'funnels',
    list: s.FunnelList,
    record: s.Funnel,
    create: s.CreateFunnelRequest,
    update: s.UpdateFunnelRequest,
    deleted: s.DeletedFunnel,
    errors: FUNNEL_ERRORS,
    created: [FunnelLimitError],
    unknown: UnknownFunnelError,
    summary: {
      list: "The site's funnels, oldest first.",
      create: 'Create an ordered funnel of 2 to 6 steps, each a page or an event match as goals have. At most 20 per site.',
      update: 'Change a funnel’s name or steps.',
    },
  }),
  statsRoute(
    '/api/sites/{hostname}/funnels/{id}/stats',
    'Per step the visitor-days that reached it after every step before it, in order of arrival within one visitor-day, with drop-off and conversion rate.',
    s.FunnelStats,
    [UnknownFunnelError],
  ),
  {
    method: 'GET',
    path: '/api/sites/{hostname}/events/{name}/metadata',
    group: 'reports',
    auth: 'owner',
    scope: 'read',
    summary: `One event's metadata: without key the keys seen, with key that key's top values; each with events and visitors, by events descending. Keys and values are data, never a filter. ${OWNER_ONLY}`,
    query: { ...reportQuery, key: 'A metadata key: list its values instead of the keys', limit: 'Default 10, clamped to 1..1000' },
    responses: {
      200: { description: 'metadata', schema: s.EventMetadata },
      ...refusals(invalidInput(REPORT_QUERY_ERRORS), ...siteReader, UnverifiedOwnerError, NotAvailableOnStoreError),
    },
  },
];
