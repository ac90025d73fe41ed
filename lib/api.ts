/**
 * The HTTP API: one function per route group of functions/http/routes.ts and
 * one API Gateway route per table entry, so the stack and the local server
 * cannot drift. `OPTIONS /{proxy+}` and `$default` go to the `meta` function,
 * which answers preflights and 404 `not found`. No CORS configuration here:
 * the handlers answer OPTIONS themselves.
 */
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { RouteDef, RouteGroup } from '#http/routes.ts';
import { NodeFunction } from './node-function.ts';

/** What each group's function may reach. A new group fails type checking until it is listed here. */
interface GroupAccess {
  table: boolean;
  eventQueue: boolean;
  /** Gets the built latest.js inlined at bundling time. */
  tracker: boolean;
}

const GROUP_ACCESS: Readonly<Record<RouteGroup, GroupAccess>> = {
  // Liveness, the API description, preflights and 404s: no storage at all.
  meta: { table: false, eventQueue: false, tracker: false },
  account: { table: true, eventQueue: false, tracker: false },
  sites: { table: true, eventQueue: false, tracker: false },
  // Reads sites and keys (and writes a key's last_used_at); event store access comes with its adapter.
  reports: { table: true, eventQueue: false, tracker: false },
  // Reads sites, writes salts, last_seen_at and automatic verification; queues rows.
  collector: { table: true, eventQueue: true, tracker: true },
};

export interface ApiProps {
  routes: readonly RouteDef[];
  table: dynamodb.ITable;
  eventQueue: sqs.IQueue;
  /** AUTH_ISSUER, AUTH_AUDIENCE, AUTH_JWKS_URI. */
  authEnvironment: Readonly<Record<string, string>>;
  /** The built, minified latest.js (functions/tracker/build.ts). */
  trackerScript: string;
}

const API_METHODS: Readonly<Record<RouteDef['method'], HttpMethod>> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PATCH: HttpMethod.PATCH,
  PUT: HttpMethod.PUT,
  DELETE: HttpMethod.DELETE,
  ANY: HttpMethod.ANY,
};

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly functions: ReadonlyMap<RouteGroup, NodeFunction>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    // `meta` always exists: it serves `$default` and the preflights.
    const groups = [...new Set<RouteGroup>(['meta', ...props.routes.map((r) => r.group)])];
    const functions = new Map<RouteGroup, NodeFunction>();
    const integrations = new Map<RouteGroup, HttpLambdaIntegration>();

    for (const group of groups) {
      const access = GROUP_ACCESS[group] as GroupAccess | undefined;
      if (!access) throw new Error(`lib/api.ts has no access settings for route group "${group}"`);
      const environment: Record<string, string> = { TABLE_NAME: props.table.tableName, ...props.authEnvironment };
      if (access.eventQueue) environment.EVENT_QUEUE_URL = props.eventQueue.queueUrl;
      const fn = new NodeFunction(this, `${pascal(group)}Function`, {
        entry: `functions/http/handlers/${group}.ts`,
        description: `tinytrack HTTP routes: ${group}`,
        environment,
        // Lambda has no esbuild to build the tracker at start, and an env var would be too small for it.
        ...(access.tracker ? { define: { 'process.env.TT_TRACKER_JS': JSON.stringify(props.trackerScript) } } : {}),
      });
      if (access.table) props.table.grantReadWriteData(fn);
      if (access.eventQueue) props.eventQueue.grantSendMessages(fn);
      functions.set(group, fn);
      integrations.set(group, new HttpLambdaIntegration(`${pascal(group)}Integration`, fn));
    }
    this.functions = functions;

    const meta = integrations.get('meta') as HttpLambdaIntegration;
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'tinytrack product API and collector',
      defaultIntegration: meta,
    });
    for (const route of props.routes) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [API_METHODS[route.method]],
        integration: integrations.get(route.group) as HttpLambdaIntegration,
      });
    }
    this.httpApi.addRoutes({ path: '/{proxy+}', methods: [HttpMethod.OPTIONS], integration: meta });
  }
}
