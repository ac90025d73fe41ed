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
  type FunnelFields,
  type GoalFields,
  type Parsed,
} from '#domain/goals/goal.ts';
import { FunnelLimitError, GoalExistsError, GoalLimitError, InvalidInputError, UnknownFunnelError, UnknownGoalError, type FixedRefusal } from '#domain/errors.ts';
import { parseReportQuery } from '#domain/reports/query.ts';
import { registrationOf } from '#domain/registration.ts';
import type { SiteRecord } from '#ports/registry.ts';
import type { FunnelRecord, GoalRecord, SiteRecords } from '#ports/goals.ts';
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

/** One kind of record under the site, as its routes create, list, change and delete it. */
interface RecordKind<T extends { id: string; site: string; created_at: string }, F> {
  records: (services: GoalsServices) => SiteRecords<T>;
  max: number;
  limit: FixedRefusal;
  unknown: FixedRefusal;
  parseCreate(body: unknown): Parsed<F>;
  parsePatch(body: unknown, current: T): Parsed<Partial<F>>;
  view(record: T): unknown;
  /** Refuses a record that may not stand beside the site's others (the goals': one per type and match). */
  refuse?(record: F & { id: string }, others: readonly T[]): void;
}

/** The list, create, change and delete handlers of a kind of record. */
function recordHandlers<T extends { id: string; site: string; created_at: string }, F>(kind: RecordKind<T, F>, listName: string) {
  const recordOf = async (req: ApiRequest, site: string): Promise<T> => {
    const id = idParam(req);
    const record = id ? await kind.records(req.services).get(site, id) : null;
    if (!record) throw new kind.unknown();
    return record;
  };
  const refuse = async (req: ApiRequest, site: string, record: F & { id: string }) => {
    if (kind.refuse) kind.refuse(record, await kind.records(req.services).list(site));
  };
  return {
    async list(req: ApiRequest) {
      const { site } = await requireOwnedSiteRead(req, hostnameParam(req));
      return json(200, { [listName]: (await kind.records(req.services).list(site.hostname)).sort(byCreation).map(kind.view) });
    },
    async create(req: ApiRequest) {
      const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
      const parsed = kind.parseCreate(jsonBody(req));
      if (!parsed.ok) throw new InvalidInputError(parsed.error);
      const record = { id: randomUUID(), site: site.hostname, ...parsed.value, created_at: nowOf(req).toISOString() } as unknown as T;
      await refuse(req, site.hostname, { ...parsed.value, id: record.id });
      if (!(await kind.records(req.services).create(record, kind.max))) throw new kind.limit();
      return json(201, kind.view(record));
    },
    async update(req: ApiRequest) {
      const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
      const current = await recordOf(req, site.hostname);
      const parsed = kind.parsePatch(jsonBody(req), current);
      if (!parsed.ok) throw new InvalidInputError(parsed.error);
      await refuse(req, site.hostname, { ...(current as unknown as F), ...parsed.value, id: current.id });
      const updated = await kind.records(req.services).update(site.hostname, current.id, parsed.value as Partial<Omit<T, 'id' | 'site' | 'created_at'>>);
      if (!updated) throw new kind.unknown();
      return json(200, kind.view(updated));
    },
    async remove(req: ApiRequest) {
      const { site } = await requireOwnedSite(req, hostnameParam(req), 'manage');
      const id = idParam(req);
      if (!id || !(await kind.records(req.services).delete(site.hostname, id))) throw new kind.unknown();
      return json(200, { deleted: id });
    },
    of: recordOf,
  };
}

const goals = recordHandlers<GoalRecord, GoalFields>(
  {
    records: (services) => services.registry.goals,
    max: MAX_GOALS,
    limit: GoalLimitError,
    unknown: UnknownGoalError,
    parseCreate: parseGoalCreate,
    parsePatch: parseGoalPatch,
    view: goalView,
    // One goal per type and match: a second would count the same rows under another name.
    refuse: (goal, others) => {
      if (others.some((g) => g.id !== goal.id && sameMatch(g, goal))) throw new GoalExistsError();
    },
  },
  'goals',
);

const funnels = recordHandlers<FunnelRecord, FunnelFields>(
  {
    records: (services) => services.registry.funnels,
    max: MAX_FUNNELS,
    limit: FunnelLimitError,
    unknown: UnknownFunnelError,
    parseCreate: parseFunnelCreate,
    parsePatch: (body) => parseFunnelPatch(body),
    view: funnelView,
  },
  'funnels',
);

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
  const funnel = await funnels.of(req, site.hostname);
  return json(200, await getFunnelStats(req.services.reports, q, funnel));
}

export const handler = createGroupHandler<GoalsServices>({
  'GET /api/sites/{hostname}/goals': goals.list,
  'POST /api/sites/{hostname}/goals': goals.create,
  'PATCH /api/sites/{hostname}/goals/{id}': goals.update,
  'DELETE /api/sites/{hostname}/goals/{id}': goals.remove,
  'GET /api/sites/{hostname}/goals/stats': goalStats,
  'GET /api/sites/{hostname}/funnels': funnels.list,
  'POST /api/sites/{hostname}/funnels': funnels.create,
  'PATCH /api/sites/{hostname}/funnels/{id}': funnels.update,
  'DELETE /api/sites/{hostname}/funnels/{id}': funnels.remove,
  'GET /api/sites/{hostname}/funnels/{id}/stats': funnelStats,
});

/** The group's Lambda handler over what its composition root built (functions/aws/http/goals.ts). */
export const createGoalsHandler = (services: GoalsServices) => handler.lambda(services);
