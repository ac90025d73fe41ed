/**
 * The one place refusals become HTTP: the status each kind is answered with
 * and the Retry-After header. Handlers, domain code and adapters throw the
 * named classes of functions/domain/errors.ts; the dispatch and the OpenAPI
 * document both read statuses from here.
 */
import type { ProductError, RefusalKind } from '#domain/errors.ts';

export const STATUS_OF_KIND: Readonly<Record<RefusalKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  not_implemented: 501,
  internal: 500,
};

/** The status and headers a refusal is answered with. */
export function httpOf(e: ProductError): { status: number; headers: Record<string, string> } {
  return { status: STATUS_OF_KIND[e.kind], headers: e.retryAfterSeconds === null ? {} : { 'Retry-After': String(e.retryAfterSeconds) } };
}
