/**
 * Route group `goals` (issue 37): a site's goals and funnels, and their stats.
 * Owner only, also for public sites; reads need `read`, changes `manage` (a
 * management key's count against its rate limit). Stats read the event store
 * as the web reports do: the owner of an unverified site is told to verify.
 */
import { randomUUID } from 'node:crypto';
import { isUuid } from '#domain/uuid.ts';
import {
  byCreation,
  funnelView,
  goalView,
  MAX_FUNNELS,
  MAX_GOALS,
  parseFunnelCreate,
  parseFunnelPatch,
  parseGoalCreate,
  parseGoalPatch,
  sameMatch,
} from '#domain/goals/goal.ts';
import { FunnelLimitError, GoalExistsError, GoalLimitError, InvalidInputError, UnknownFunnelError, UnknownGoalError } from '#domain/errors.ts';
import { parseReportQuery } from '#domain/reports/query.ts';
import { registrationOf } from '#domain/registration.ts';
import type { SiteRecord } from '#ports/registry.ts';
import type { FunnelRecord, GoalRecord } from '#ports/goals.ts';
import { getFunnelStats, getGoalStats } from '#reports/goal-reports.ts';
import type { ReportRequest } from '#reports/reports.ts';
import type { Services } from '#platform/services.ts';
import { createGroupHandler, json, jsonBody, type ApiRequest as AnyApiRequest } from '../api.ts';
import { requireOwnedSite, requireOwnedSiteRead, requireVerifiedForOwner, type AuthServices } from '../auth.ts';
import { resolveGoalFilters } from '../goal-filters.ts';

/** Callers, the registry, and the report store of the stats. */
export type GoalsServices = AuthServices & Pick<Services, 'reports'>;
type ApiRequest = AnyApiRequest<GoalsServices>;

const hostnameParam = (req: ApiRequest) => req.params.hostname ?? '';
/** Ids are UUIDs: anything else names nothing (and never reaches the store, whose keys are bounded). */
const idParam = (req: ApiRequest) => (isUuid(req.params.id) ? (req.params.id as string) : null);
const nowOf = (req: ApiRequest) => req.services.clock.now();

async function goalOf(req: ApiRequest, site: string): Promise<GoalRecord> {
  const id = idParam(req);
  const goal = id ? await req.services.registry.goals.get(site, id) : null;
  if (!goal) throw new UnknownGoalError();
  return goal;
}

async function funnelOf(req: ApiRequest, site: string): Promise<FunnelRecord> {
  const id = idParam(req);
  const funnel = id ? await req.services.registry.funnels.get(site, id) : null;
  if (!funnel) throw new UnknownFunnelError();
  return funnel;
}

async function listGoals(req: ApiRequest) {
  const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
  return json(200, { goals: (await req.services.registry.goals.list(site.hostname)).sort(byCreation).map(goalView) });
}

/** One goal per type and match: a second would count the same rows under another name. */
async function refuseDuplicate(req: ApiRequest, goal: Pick<GoalRecord, 'type' | 'match' | 'id'>) {
  const goals = await req.services.registry.goals.list(hostnameParam(req));
  if (goals.some((g) => g.id !== goal.id && sameMatch(g, goal))) throw new GoalExistsError();
}

async function createGoal(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const parsed = parseGoalCreate(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const goal: GoalRecord = { id: randomUUID(), site: site.hostname, ...parsed.value, created_at: nowOf(req).toISOString() };
  await refuseDuplicate(req, goal);
  if (!(await req.services.registry.goals.create(goal, MAX_GOALS))) throw new GoalLimitError();
  return json(201, goalView(goal));
}

async function updateGoal(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const current = await goalOf(req, site.hostname);
  const parsed = parseGoalPatch(jsonBody(req), current);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  await refuseDuplicate(req, { ...parsed.value, id: current.id });
  const updated = await req.services.registry.goals.update(site.hostname, current.id, parsed.value);
  if (!updated) throw new UnknownGoalError();
  return json(200, goalView(updated));
}

async function deleteGoal(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const id = idParam(req);
  if (!id || !(await req.services.registry.goals.delete(site.hostname, id))) throw new UnknownGoalError();
  return json(200, { deleted: id });
}

async function listFunnels(req: ApiRequest) {
  const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
  return json(200, { funnels: (await req.services.registry.funnels.list(site.hostname)).sort(byCreation).map(funnelView) });
}

async function createFunnel(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const parsed = parseFunnelCreate(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const funnel: FunnelRecord = { id: randomUUID(), site: site.hostname, ...parsed.value, created_at: nowOf(req).toISOString() };
  if (!(await req.services.registry.funnels.create(funnel, MAX_FUNNELS))) throw new FunnelLimitError();
  return json(201, funnelView(funnel));
}

async function updateFunnel(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const current = await funnelOf(req, site.hostname);
  const parsed = parseFunnelPatch(jsonBody(req));
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const updated = await req.services.registry.funnels.update(site.hostname, current.id, parsed.value);
  if (!updated) throw new UnknownFunnelError();
  return json(200, funnelView(updated));
}

async function deleteFunnel(req: ApiRequest) {
  const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
  const id = idParam(req);
  if (!id || !(await req.services.registry.funnels.delete(site.hostname, id))) throw new UnknownFunnelError();
  return json(200, { deleted: id });
}

/** The owner's verified site and the report query, goal clauses resolved: what both stats read. */
async function statsRequest(req: ApiRequest): Promise<{ site: SiteRecord; q: ReportRequest }> {
  const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
  requireVerifiedForOwner(site);
  const now = Math.floor(nowOf(req).getTime() / 1000);
  const parsed = parseReportQuery(req.query, now);
  if (!parsed.ok) throw new InvalidInputError(parsed.error);
  const filters = await resolveGoalFilters(req.services.registry, site, parsed.filters, true);
  return { site, q: { site: site.hostname, registration: registrationOf(site), range: parsed.range, tz: parsed.tz, filters, now } };
}

async function goalStats(req: ApiRequest) {
  const { site, q } = await statsRequest(req);
  const goals = (await req.services.registry.goals.list(site.hostname)).sort(byCreation);
  return json(200, await getGoalStats(req.services.reports, q, goals));
}

async function funnelStats(req: ApiRequest) {
  const { site, q } = await statsRequest(req);
  const funnel = await funnelOf(req, site.hostname);
  return json(200, await getFunnelStats(req.services.reports, q, funnel));
}

export const handler = createGroupHandler<GoalsServices>({
  'GET /api/sites/{hostname}/goals': listGoals,
  'POST /api/sites/{hostname}/goals': createGoal,
  'PATCH /api/sites/{hostname}/goals/{id}': updateGoal,
  'DELETE /api/sites/{hostname}/goals/{id}': deleteGoal,
  'GET /api/sites/{hostname}/goals/stats': goalStats,
  'GET /api/sites/{hostname}/funnels': listFunnels,
  'POST /api/sites/{hostname}/funnels': createFunnel,
  'PATCH /api/sites/{hostname}/funnels/{id}': updateFunnel,
  'DELETE /api/sites/{hostname}/funnels/{id}': deleteFunnel,
  'GET /api/sites/{hostname}/funnels/{id}/stats': funnelStats,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/goals.ts). */
export const createGoalsHandler = (services: GoalsServices) => handler.lambda(services);
