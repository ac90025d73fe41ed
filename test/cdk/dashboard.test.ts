/**
 * The dashboard's hosting (bundling skipped): its files in a private bucket
 * only CloudFront reads, one distribution for the dashboard and `/api/*`
 * (so the API has no CORS and no other origin), Cognito's hosted sign-in with
 * the dashboard's /login as the app client's only callback, and the icon
 * bucket reachable from the sites function alone.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PAGE_REWRITE } from '../../lib/dashboard.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { BUCKET_DEPLOYMENT_HELPER, DASHBOARD_FIXTURE, actionsOf, logicalIdOf, refTarget, resourcesOf, statementsByRole, type Resource } from './template-helpers.ts';

const synth = (context: Record<string, unknown> = {}) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  return { stack, template: Template.fromStack(stack) };
};

const only = (template: Template, type: string): [string, Resource] => {
  const found = Object.entries(resourcesOf(template, type));
  expect(found.map(([id]) => id), type).toHaveLength(1);
  return found[0]!;
};

describe('the dashboard on AWS', () => {
  let stack: TinytrackStack;
  let template: Template;
  beforeAll(() => ({ stack, template } = synth()));

  it('serves the dashboard from a private bucket that only this distribution may read', () => {
    const bucketId = logicalIdOf(stack.dashboard.bucket);
    const bucket = resourcesOf(template, 'AWS::S3::Bucket')[bucketId]!;
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    const policy = Object.values(resourcesOf(template, 'AWS::S3::BucketPolicy')).find((p) => refTarget(p.Properties.Bucket) === bucketId)!;
    const reads = policy.Properties.PolicyDocument.Statement.filter((s: { Effect: string }) => s.Effect === 'Allow');
    expect(reads).toHaveLength(1);
    expect(reads[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(actionsOf(reads[0])).toEqual(['s3:GetObject']);
    expect(JSON.stringify(reads[0].Condition)).toContain(logicalIdOf(stack.dashboard.distribution));
  });

  it('routes /api/* to the HTTP API uncached with every viewer header, and rewrites page paths to index.html', () => {
    const [, distribution] = only(template, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(config.CacheBehaviors).toHaveLength(1);
    const api = config.CacheBehaviors[0];
    expect(api.PathPattern).toBe('/api/*');
    expect(api.AllowedMethods).toEqual(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']);
    // The managed CachingDisabled and AllViewerExceptHostHeader policies (the latter passes Authorization when nothing is cached).
    expect(api.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(api.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
    const origin = config.Origins.find((o: { Id: string }) => o.Id === api.TargetOriginId);
    expect(JSON.stringify(origin.DomainName)).toContain(logicalIdOf(stack.api.httpApi));
    expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
  });

  it('the edge rewrite answers the same page paths as the local server', () => {
    const handler = new Function(`${PAGE_REWRITE}; return handler;`)() as (e: { request: { uri: string } }) => { uri: string };
    const rewritten = (uri: string) => handler({ request: { uri } }).uri;
    for (const page of ['/', '/login', '/sites/a.example', '/sites/a.example/settings', '/share/a.example']) expect(rewritten(page), page).toBe('/index.html');
    for (const other of ['/dashboard/app-X.js', '/sites', '/sites/a/b/c', '/share/a/b', '/favicon.ico']) expect(rewritten(other), other).toBe(other);
  });

  it('sends the CSP, HSTS and no-framing headers with every dashboard file', () => {
    const [, policy] = only(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    const security = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(security.ContentSecurityPolicy.ContentSecurityPolicy).toContain("script-src 'self'");
    expect(security.FrameOptions.FrameOption).toBe('DENY');
    expect(security.StrictTransportSecurity.AccessControlMaxAgeSec).toBe(31_536_000);
  });

  it('gives Cognito a hosted sign-in domain and the dashboard /login as the only callback and sign-out URL, code flow, no secret', () => {
    only(template, 'AWS::Cognito::UserPoolDomain');
    const [, client] = only(template, 'AWS::Cognito::UserPoolClient');
    const expected = [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalIdOf(stack.dashboard.distribution), 'DomainName'] }, '/login']] }];
    expect(client.Properties.CallbackURLs).toEqual(expected);
    expect(client.Properties.LogoutURLs).toEqual(expected);
    expect(client.Properties.AllowedOAuthFlows).toEqual(['code']);
    expect(client.Properties.AllowedOAuthScopes).toEqual(['openid', 'email', 'profile']);
    expect(client.Properties.GenerateSecret).toBe(false);
  });

  it('leaves the API without CORS: the dashboard reaches it on its own origin', () => {
    const [, api] = only(template, 'AWS::ApiGatewayV2::Api');
    expect(api.Properties.CorsConfiguration).toBeUndefined();
  });

  it('uploads the files with the CDK helper, which may write the dashboard bucket and nothing else of ours', () => {
    const helpers = Object.keys(resourcesOf(template, 'AWS::Lambda::Function')).filter((id) => id.startsWith(BUCKET_DEPLOYMENT_HELPER));
    expect(helpers).toHaveLength(1);
    const helperRole = Object.keys(resourcesOf(template, 'AWS::IAM::Role')).find((id) => id.startsWith(BUCKET_DEPLOYMENT_HELPER))!;
    const statements = statementsByRole(template).get(helperRole)!;
    const text = JSON.stringify(statements);
    expect(text).toContain(logicalIdOf(stack.dashboard.bucket));
    expect(text).not.toContain(logicalIdOf(stack.storage.icons));
    expect(text).not.toContain(logicalIdOf(stack.storage.table));
    expect(text).not.toContain('cloudfront:');
  });

  it('gives the icon bucket to the sites function alone, under icons/', () => {
    const iconBucket = logicalIdOf(stack.storage.icons);
    const sites = logicalIdOf(stack.api.functions.get('sites')!.node.defaultChild as never);
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    for (const [id, fn] of Object.entries(functions)) {
      const env = fn.Properties.Environment?.Variables ?? {};
      expect('ICON_BUCKET' in env, id).toBe(id === sites);
    }
    const byRole = statementsByRole(template);
    const withIcons = [...byRole].filter(([, statements]) => JSON.stringify(statements).includes(iconBucket)).map(([role]) => role);
    expect(withIcons).toEqual([functions[sites]!.Properties.Role['Fn::GetAtt'][0]]);
    const resources = JSON.stringify(byRole.get(withIcons[0]!)!.filter((s) => JSON.stringify(s).includes(iconBucket)).map((s) => s.Resource));
    expect(resources).toContain('/icons/*');
  });
});

describe('the dashboard with another OIDC issuer', () => {
  it('creates no Cognito domain or client: owners sign in with that issuer', () => {
    const { template } = synth({ authIssuer: 'https://id.example.com/realm', authAudience: 'dashboard-client' });
    expect(Object.keys(resourcesOf(template, 'AWS::Cognito::UserPoolDomain'))).toEqual([]);
    expect(Object.keys(resourcesOf(template, 'AWS::Cognito::UserPoolClient'))).toEqual([]);
    only(template, 'AWS::CloudFront::Distribution');
  });
});
