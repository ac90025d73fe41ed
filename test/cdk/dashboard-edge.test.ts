/**
 * The dashboard's answers beyond S3 (bundling skipped): the session routes
 * and the embed page on the HTTP API behind the dashboard's CloudFront
 * origin, their least privilege, the app client's refresh-token validity
 * (DASHBOARD_SESSION_DAYS), and the "not found" answers with status 404.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND_JSON, NOT_FOUND_PAGE, PAGE_REWRITE, STATUS_FROM_METADATA, STATUS_METADATA } from '../../lib/dashboard.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, actionsOf, allowsItem, logicalIdOf, renderValue, resourcesOf, statementsOfFunction, tableArns, type ConditionedStatement, type Resource } from './template-helpers.ts';

const synth = (context: Record<string, unknown> = {}) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  return { stack, template: Template.fromStack(stack) };
};

const SESSION_PATHS = ['/dashboard/login', '/dashboard/session', '/dashboard/logout'];
type Behavior = { PathPattern: string; TargetOriginId: string; AllowedMethods: string[]; CachePolicyId: string; OriginRequestPolicyId: string; ResponseHeadersPolicyId: unknown };

describe('the dashboard’s session routes and embed page on AWS', () => {
  let stack: TinytrackStack;
  let template: Template;
  let behaviors: Behavior[];
  let config: { DefaultCacheBehavior: { FunctionAssociations: { EventType: string; FunctionARN: unknown }[] }; Origins: { Id: string; DomainName: unknown }[] };
  beforeAll(() => {
    ({ stack, template } = synth());
    const distribution = Object.values(resourcesOf(template, 'AWS::CloudFront::Distribution'))[0]!;
    config = distribution.Properties.DistributionConfig;
    behaviors = distribution.Properties.DistributionConfig.CacheBehaviors;
  });

  it('sends /embed/* and the three session paths to the HTTP API, uncached, cookies and headers through, under a headers policy without frame options', () => {
    expect(behaviors.map((b) => b.PathPattern)).toEqual(['/api/*', '/embed/*', ...SESSION_PATHS]);
    const api = behaviors[0]!;
    const edgePolicyId = logicalIdOf(stack.dashboard!.node.findChild('EdgeHeaders'));
    for (const b of behaviors.slice(1)) {
      expect(b.TargetOriginId, b.PathPattern).toBe(api.TargetOriginId);
      expect([b.CachePolicyId, b.OriginRequestPolicyId, b.AllowedMethods], b.PathPattern).toEqual([api.CachePolicyId, api.OriginRequestPolicyId, api.AllowedMethods]);
      expect(b.ResponseHeadersPolicyId, b.PathPattern).toEqual({ Ref: edgePolicyId });
    }
    const security = resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy')[edgePolicyId]!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(Object.keys(security).sort()).toEqual(['ContentTypeOptions', 'ReferrerPolicy', 'StrictTransportSecurity']);
  });

  it('routes GET /embed/{slug} to the embed function and POST on each session path to the session function', () => {
    const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map((r) => r.Properties);
    const integrations = resourcesOf(template, 'AWS::ApiGatewayV2::Integration');
    const targetOf = (key: string) => {
      const route = routes.find((r) => r.RouteKey === key);
      const integration = integrations[(route?.Target['Fn::Join'][1][1] as { Ref: string }).Ref]!;
      return integration.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
    };
    expect(targetOf('GET /embed/{slug}')).toBe(logicalIdOf(stack.dashboardEdge!.embed));
    for (const path of SESSION_PATHS) expect(targetOf(`POST ${path}`), path).toBe(logicalIdOf(stack.dashboardEdge!.session!));
  });

  it('gives the session function Cognito’s domain, the client, the dashboard’s origin and the session days, and no permission at all', () => {
    const session = logicalIdOf(stack.dashboardEdge!.session!);
    const env = resourcesOf(template, 'AWS::Lambda::Function')[session]!.Properties.Environment.Variables;
    expect(renderValue(env.AUTH_DOMAIN_URL)).toMatch(/^https:\/\/\$\{AuthUserPoolDomain[A-Z0-9]+\}\.auth\.\$\{AWS::Region\}\.amazoncognito\.com$/);
    expect(env.AUTH_AUDIENCE).toEqual({ Ref: logicalIdOf(stack.auth.userPoolClient!) });
    expect(renderValue(env.DASHBOARD_ORIGIN)).toBe(`https://\${${logicalIdOf(stack.dashboard!.distribution)}.DomainName}`);
    expect(env.DASHBOARD_SESSION_DAYS).toBe('30');
    expect(env.TABLE_NAME).toBeUndefined();
    expect(statementsOfFunction(template, session)).toEqual([]);
  });

  it('lets the embed function read share links by slug and items under a site, and nothing else of the table', () => {
    const embed = logicalIdOf(stack.dashboardEdge!.embed);
    const statements = statementsOfFunction(template, embed) as ConditionedStatement[];
    const arns = tableArns(logicalIdOf(stack.storage.table));
    expect(statements.flatMap(actionsOf).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    expect(allowsItem(statements, 'dynamodb:Query', arns.index, 'SHARESLUG#abc')).toBe(true);
    expect(allowsItem(statements, 'dynamodb:GetItem', arns.table, 'SITE#a.example')).toBe(true);
    expect(allowsItem(statements, 'dynamodb:GetItem', arns.table, 'SECRET#share')).toBe(false);
    expect(allowsItem(statements, 'dynamodb:Query', arns.index, 'SITES#uid')).toBe(false);
  });

  it('keeps refresh tokens DASHBOARD_SESSION_DAYS (30 by default, -c dashboardSessionDays), ID tokens 15 minutes, and lets sign-out revoke them', () => {
    const client = (t: Template) => Object.values(resourcesOf(t, 'AWS::Cognito::UserPoolClient'))[0]!.Properties;
    const validity = (p: Resource['Properties']) => ({ refresh: [p.RefreshTokenValidity, p.TokenValidityUnits.RefreshToken], id: [p.IdTokenValidity, p.TokenValidityUnits.IdToken] });
    expect(validity(client(template))).toEqual({ refresh: [43_200, 'minutes'], id: [15, 'minutes'] });
    expect(client(template).EnableTokenRevocation).toBe(true);
    const week = synth({ dashboardSessionDays: '7' }).template;
    expect(validity(client(week)).refresh).toEqual([10_080, 'minutes']);
    const sessionEnv = Object.values(resourcesOf(week, 'AWS::Lambda::Function')).find((f) => f.Properties.Environment?.Variables?.AUTH_DOMAIN_URL);
    expect(sessionEnv?.Properties.Environment.Variables.DASHBOARD_SESSION_DAYS).toBe('7');
    expect(() => synth({ dashboardSessionDays: '0' })).toThrow(/dashboardSessionDays must be a whole number from 1 to 365/);
  });

  it('makes no session function with another OIDC issuer (its tokens stay in the tab) but still serves the embed page', () => {
    const { stack: other, template: t } = synth({ authIssuer: 'https://id.example.com/realm', authAudience: 'dashboard-client' });
    expect(other.dashboardEdge!.session).toBeUndefined();
    const distribution = Object.values(resourcesOf(t, 'AWS::CloudFront::Distribution'))[0]!;
    expect(distribution.Properties.DistributionConfig.CacheBehaviors.map((b: Behavior) => b.PathPattern)).toEqual(['/api/*', '/embed/*']);
  });

  it('answers unknown paths with the page’s "not found" (browsers) or the JSON 404, stored with their status, which the viewer response applies', () => {
    type Request = { uri: string; method: string; headers: Record<string, { value: string }> };
    const rewrite = new Function(`${PAGE_REWRITE}; return handler;`)() as (e: { request: Request }) => Request;
    const uriOf = (uri: string, method: string, accept?: string) => rewrite({ request: { uri, method, headers: accept ? { accept: { value: accept } } : {} } }).uri;
    expect(uriOf('/no/such/page', 'GET', 'text/html,application/xhtml+xml')).toBe(NOT_FOUND_PAGE);
    expect(uriOf('/no/such/page', 'GET', 'application/json')).toBe(NOT_FOUND_JSON);
    expect(uriOf('/no/such/page', 'GET')).toBe(NOT_FOUND_JSON);
    expect(uriOf('/no/such/page', 'HEAD', 'text/html')).toBe(NOT_FOUND_JSON);
    expect(uriOf('/dashboard/config.json', 'GET', 'text/html')).toBe('/dashboard/config.json');

    type Response = { statusCode: number; statusDescription?: string; headers: Record<string, { value: string }> };
    const status = new Function(`${STATUS_FROM_METADATA}; return handler;`)() as (e: { response: Response }) => Response;
    const marked = status({ response: { statusCode: 200, headers: { [`x-amz-meta-${STATUS_METADATA}`]: { value: '404' }, 'content-type': { value: 'text/html' } } } });
    expect(marked).toEqual({ statusCode: 404, statusDescription: 'Not Found', headers: { 'content-type': { value: 'text/html' } } });
    expect(status({ response: { statusCode: 200, headers: {} } }).statusCode).toBe(200);

    const events = config.DefaultCacheBehavior.FunctionAssociations.map((a) => a.EventType);
    expect(events).toEqual(['viewer-request', 'viewer-response']);
    const deployments = Object.values(resourcesOf(template, 'Custom::CDKBucketDeployment')).map((d) => d.Properties);
    const notFound = deployments.filter((d) => d.UserMetadata?.[STATUS_METADATA] === '404');
    expect(notFound).toHaveLength(1);
    expect(notFound[0]!.SystemMetadata['cache-control']).toBe('no-cache');
    expect(notFound[0]!.SourceObjectKeys).toHaveLength(2);
  });
});
