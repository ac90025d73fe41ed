/**
 * The dashboard's session routes on AWS (functions/http/session-routes.ts
 * oidcSessionRoutes over Cognito's token and revocation endpoints), behind
 * CloudFront on the dashboard's own origin: `POST /dashboard/login|session|logout`.
 * No table, no issuer keys: the refresh token is the session.
 */
import { SESSION_PATHS } from '#domain/dashboard-session.ts';
import { createGroupHandler, type ApiRequest } from '../api.ts';
import { answerSessionRoute, oidcSessionRoutes, type OidcSessionOptions, type SessionRoute } from '../session-routes.ts';

const routeOf = (route: SessionRoute) => (req: ApiRequest<unknown>) => answerSessionRoute(route, req.body, req.headers);

/** The Lambda handler over the issuer's endpoints (its composition root: functions/aws/edge/session.ts). */
export function createDashboardSessionHandler(options: OidcSessionOptions) {
  const routes = oidcSessionRoutes(options);
  return createGroupHandler<unknown>(Object.fromEntries(Object.values(SESSION_PATHS).map((path) => [`POST ${path}`, routeOf(routes[path])]))).lambda(null);
}
