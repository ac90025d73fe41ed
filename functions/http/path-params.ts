/**
 * Path values that cannot name anything are answered 404 at the edge, for
 * every route at once, before a store sees them: a DynamoDB key has a size
 * limit, and a value past it would fail the read (500) instead of missing.
 */
import { ApiError, UNKNOWN_IMPORT, UNKNOWN_KEY, unknownSiteError } from '#domain/errors.ts';
import { isNormalizedHostname } from '#domain/hostname-form.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isUuid = (value: string) => UUID.test(value);

/**
 * Every path parameter of the route table, by name: which values could exist
 * and the not-found answer for the others. Hostnames are registered in
 * normalized form and path values are not normalized (spec part 4), so any
 * other spelling is an unknown site; job and key ids are UUIDs.
 */
export const PATH_PARAMS: Readonly<Record<string, { possible(value: string): boolean; notFound(): ApiError }>> = {
  hostname: { possible: isNormalizedHostname, notFound: unknownSiteError },
  jobId: { possible: isUuid, notFound: () => new ApiError(404, UNKNOWN_IMPORT) },
  id: { possible: isUuid, notFound: () => new ApiError(404, UNKNOWN_KEY) },
};

/** The not-found answer for the first impossible parameter in path order (a site before its job), or null. */
export function impossibleParam(params: Readonly<Record<string, string>>): ApiError | null {
  for (const name in params) {
    const rule = PATH_PARAMS[name];
    if (rule && !rule.possible(params[name] as string)) return rule.notFound();
  }
  return null;
}
