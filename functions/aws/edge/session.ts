/**
 * Lambda entry of the dashboard's session routes on AWS: Cognito's token and
 * revocation endpoints for the app client, the dashboard's /login as the
 * code's callback, DASHBOARD_SESSION_DAYS as the cookie's lifetime. No AWS
 * client at all: the function reaches Cognito's public endpoints only.
 */
import { OidcTokenClient } from '#adapters/oidc/oidc-token-client.ts';
import { createDashboardSessionHandler } from '#http/handlers/dashboard-session.ts';
import { loadConfig, required } from '#platform/config.ts';

const config = loadConfig();
const domain = required(config, 'authDomainUrl');

export const handler = createDashboardSessionHandler({
  tokens: new OidcTokenClient({ tokenUrl: `${domain}/oauth2/token`, revokeUrl: `${domain}/oauth2/revoke`, clientId: required(config, 'auth').audience }),
  sessionDays: config.dashboardSessionDays,
  redirectUri: `${required(config, 'dashboardOrigin')}/login`,
  // CloudFront serves the dashboard over HTTPS only.
  secureCookie: true,
});
