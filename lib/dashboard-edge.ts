/**
 * The two answers of the dashboard's origin that S3 cannot give, as routes
 * of the HTTP API that CloudFront sends there (lib/dashboard.ts
 * EDGE_BEHAVIORS), the same paths the local server answers
 * (functions/local/dashboard-edge.ts):
 *   - the session routes `POST /dashboard/login|session|logout` (issue 40): the
 *     code exchange at Cognito's token endpoint, the refresh token in an
 *     HttpOnly cookie, ID tokens per tab, revocation on sign-out. Only with
 *     Cognito's hosted sign-in. The function has no table and no AWS client;
 *   - the embeddable share view `GET /embed/{slug}`: the page, inlined at
 *     bundling time, with the site's `frame-ancestors`. It reads share links
 *     (gsi1) and items under a site, nothing else.
 */
import { Duration } from 'aws-cdk-lib';
import { HttpMethod, type HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { SESSION_PATHS } from '#domain/dashboard-session.ts';
import type { Auth } from './auth.ts';
import { HTTP_SOURCE_MAPS } from './api.ts';
import { NodeFunction } from './node-function.ts';
import { KEY_PATTERNS, grantTableRules, type TableRule } from './table-access.ts';

export const SESSION_ENTRY = 'functions/aws/edge/session.ts';
export const EMBED_ENTRY = 'functions/aws/edge/embed.ts';

/** The embed page's reads: a link by its slug's hash on gsi1, then the link and its site under the site's partition. */
export const EMBED_TABLE: readonly TableRule[] = [
  { keys: [KEY_PATTERNS.site], actions: ['GetItem'] },
  { keys: [KEY_PATTERNS.shareSlug], actions: ['Query'], index: true },
];

/** The page the embed function serves, inlined at bundling (read through functions/platform/config.ts lambdaEnv). */
export const embedDefines = (page: string): Record<string, string> => ({ 'process.env.TT_DASHBOARD_HTML': JSON.stringify(page) });

export interface DashboardEdgeProps {
  httpApi: HttpApi;
  table: dynamodb.ITable;
  auth: Auth;
  /** The built index.html. */
  page: string;
  /** DASHBOARD_SESSION_DAYS: the cookie's lifetime, as the app client's refresh-token validity (lib/auth.ts). */
  sessionDays: number;
}

export class DashboardEdgeFunctions extends Construct {
  readonly embed: NodeFunction;
  /** Only with Cognito's hosted sign-in: an external issuer's tokens stay in the tab. */
  readonly session?: NodeFunction;

  constructor(scope: Construct, id: string, props: DashboardEdgeProps) {
    super(scope, id);
    this.embed = new NodeFunction(this, 'EmbedFunction', {
      entry: EMBED_ENTRY,
      description: 'tinytrack dashboard: the embeddable share view (/embed/{slug})',
      environment: { TABLE_NAME: props.table.tableName },
      define: embedDefines(props.page),
      sourceMaps: HTTP_SOURCE_MAPS,
    });
    grantTableRules(props.table, this.embed, EMBED_TABLE);
    props.httpApi.addRoutes({ path: '/embed/{slug}', methods: [HttpMethod.GET], integration: new HttpLambdaIntegration('EmbedIntegration', this.embed) });

    const domain = props.auth.userPoolDomain;
    if (!domain) return;
    this.session = new NodeFunction(this, 'SessionFunction', {
      entry: SESSION_ENTRY,
      description: 'tinytrack dashboard: sessions over Cognito refresh tokens (/dashboard/login|session|logout)',
      environment: { ...props.auth.environment, AUTH_DOMAIN_URL: domain.baseUrl(), DASHBOARD_SESSION_DAYS: String(props.sessionDays) },
      // Cognito answers in well under a second; the client gives each call 5 s.
      timeout: Duration.seconds(12),
      memorySize: 256,
      sourceMaps: HTTP_SOURCE_MAPS,
    });
    const integration = new HttpLambdaIntegration('SessionIntegration', this.session);
    for (const path of Object.values(SESSION_PATHS)) props.httpApi.addRoutes({ path, methods: [HttpMethod.POST], integration });
  }

  /** The dashboard's origin, once the distribution exists: its /login is the callback the code is bound to. */
  useDashboardOrigin(origin: string): void {
    this.session?.addEnvironment('DASHBOARD_ORIGIN', origin);
  }
}
