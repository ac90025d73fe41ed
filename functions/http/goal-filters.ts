/**
 * The `goal:<id>` clauses of a report's filter, resolved to the goal's match
 * (domain/reports/filter.ts GoalClause). Goals are owner-only: for anyone
 * else, and for an id that names no goal of the site, the filter is invalid.
 */
import { InvalidInputError } from '#domain/errors.ts';
import { INVALID_FILTER } from '#domain/reports/query.ts';
import { hasGoalClause, isGoalClause, type FilterClause } from '#domain/reports/filter.ts';
import { registrationOf } from '#domain/registration.ts';
import { isUuid } from '#domain/uuid.ts';
import type { Registry, SiteRecord } from '#ports/registry.ts';

export async function resolveGoalFilters(registry: Pick<Registry, 'goals'>, site: SiteRecord, filters: FilterClause[], owner: boolean): Promise<FilterClause[]> {
  if (!hasGoalClause(filters)) return filters;
  if (!owner) throw new InvalidInputError(INVALID_FILTER);
  return Promise.all(
    filters.map(async (f) => {
      if (!isGoalClause(f)) return f;
      const goal = isUuid(f.value) ? await registry.goals.get(site.hostname, f.value) : null;
      if (!goal) throw new InvalidInputError(INVALID_FILTER);
      return { ...f, goal: { site: site.hostname, registration: registrationOf(site), type: goal.type, match: goal.match } };
    }),
  );
}
