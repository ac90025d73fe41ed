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
import { NOT_FOUND_PAGE, PAGE_REWRITE, type Dashboard } from '../../lib/dashboard.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { BUCKET_DEPLOYMENT_HELPER, DASHBOARD_FIXTURE, actionsOf, logicalIdOf, refTarget, renderValue, resourcesOf, statementsByRole, type Resource } from './template-helpers.ts';

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
  let dashboard: Dashboard;
  beforeAll(() => {
    ({ stack, template } = synth());
    dashboard = stack.dashboard!;
  });

  it('serves the dashboard from a private bucket that only this distribution may read', () => {
    const bucketId = logicalIdOf(dashboard.bucket);
    const bucket = resourcesOf(template, 'AWS::S3::Bucket')[bucketId]!;
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    const policy = Object.values(resourcesOf(template, 'AWS::S3::BucketPolicy')).find((p) => refTarget(p.Properties.Bucket) === bucketId)!;
    const reads = policy.Properties.PolicyDocument.Statement.filter((s: { Effect: string }) => s.Effect === 'Allow');
    expect(reads).toHaveLength(1);
    expect(reads[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(actionsOf(reads[0])).toEqual(['s3:GetObject']);
    expect(JSON.stringify(reads[0].Condition)).toContain(logicalIdOf(dashboard.distribution));
  });

  it('routes /api/* to the HTTP API uncached with every viewer header, and rewrites page paths to index.html', () => {
    const [, distribution] = only(template, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(2);
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
    type Request = { uri: string; method: string; headers: Record<string, { value: string }> };
    const handler = new Function(`${PAGE_REWRITE}; return handler;`)() as (e: { request: Request }) => Request;
    const rewritten = (uri: string) => handler({ request: { uri, method: 'GET', headers: { accept: { value: 'text/html' } } } }).uri;
    for (const page of ['/', '/login', '/account', '/sites/a.example', '/sites/a.example/settings', '/share/a.example', '/share/link/AbC-_123']) expect(rewritten(page), page).toBe('/index.html');
    expect(rewritten('/dashboard/app-X.js')).toBe('/dashboard/app-X.js');
    for (const other of ['/sites', '/sites/a/b/c', '/share/a/b', '/share/link/a/b', '/embed', '/favicon.ico']) expect(rewritten(other), other).toBe(NOT_FOUND_PAGE);
  });

  it('sends the CSP, HSTS and no-framing headers with every dashboard file', () => {
    const policy = resourcesOf(template, 'AWS::CloudFront::ResponseHeadersPolicy')[logicalIdOf(dashboard.node.findChild('Headers'))]!;
    const security = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(security.ContentSecurityPolicy.ContentSecurityPolicy).toContain("script-src 'self'");
    expect(security.FrameOptions.FrameOption).toBe('DENY');
    expect(security.StrictTransportSecurity.AccessControlMaxAgeSec).toBe(31_536_000);
  });

  it('gives Cognito a hosted sign-in domain and the dashboard /login as the only callback and sign-out URL, code flow, no secret', () => {
    only(template, 'AWS::Cognito::UserPoolDomain');
    const [, client] = only(template, 'AWS::Cognito::UserPoolClient');
    const expected = [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalIdOf(dashboard.distribution), 'DomainName'] }, '/login']] }];
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
    expect(text).toContain(logicalIdOf(dashboard.bucket));
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

describe('the stack without its dashboard (-c dashboard=false)', () => {
  const outputs = (template: Template) => template.toJSON().Outputs as Record<string, { Value: unknown }>;

  it('creates no CloudFront resource, dashboard bucket or upload, and still serves the API and the collector', () => {
    const { stack, template } = synth({ dashboard: 'false' });
    expect(stack.dashboard).toBeUndefined();
    const types = Object.values(template.toJSON().Resources as Record<string, Resource>).map((r) => r.Type);
    expect(types.filter((t) => t.startsWith('AWS::CloudFront::') || t === 'Custom::CDKBucketDeployment')).toEqual([]);
    expect(Object.keys(outputs(template))).toEqual(expect.arrayContaining(['ApiUrl', 'CollectorUrl', 'UserPoolClientId']));
    expect(Object.keys(outputs(template))).not.toContain('DashboardUrl');
    // No dashboard calls Cognito back: no hosted sign-in domain, no code flow on the client.
    expect(Object.keys(resourcesOf(template, 'AWS::Cognito::UserPoolDomain'))).toEqual([]);
    const [, client] = only(template, 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.AllowedOAuthFlowsUserPoolClient).toBe(false);
    expect(client.Properties.CallbackURLs).toBeUndefined();
  });

  it('takes false as cdk.context.json writes it', () => {
    expect(synth({ dashboard: false }).stack.dashboard).toBeUndefined();
  });

  it('with dashboardOrigin: Cognito calls back to that origin, and DashboardConfig is the config.json to serve there', () => {
    const { stack, template } = synth({ dashboard: 'false', dashboardOrigin: 'https://analytics.example.com' });
    only(template, 'AWS::Cognito::UserPoolDomain');
    const [, client] = only(template, 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.CallbackURLs).toEqual(['https://analytics.example.com/login']);
    expect(client.Properties.AllowedOAuthFlows).toEqual(['code']);
    expect(outputs(template).DashboardUrl?.Value).toBe('https://analytics.example.com');
    const config = JSON.parse(renderValue(outputs(template).DashboardConfig?.Value)) as { signIn: Record<string, string> };
    const domain = logicalIdOf(stack.auth.userPoolDomain!);
    expect(config.signIn).toMatchObject({ type: 'oidc', clientId: `\${${logicalIdOf(stack.auth.userPoolClient!)}}`, scope: 'openid email profile' });
    expect(config.signIn.authorizeUrl).toMatch(new RegExp(`^https://\\$\\{${domain}\\}\\.auth\\.\\$\\{AWS::Region\\}\\.amazoncognito\\.com/oauth2/authorize$`));
  });

  it('with dashboardOrigin: DashboardConfig names the live stream’s URL, whose CORS lets that origin in (the export’s: test/cdk/export.test.ts)', () => {
    const { stack, template } = synth({ dashboard: 'false', dashboardOrigin: 'https://analytics.example.com' });
    const urls = Object.entries(template.findResources('AWS::Lambda::Url')).filter(([id, u]) => u.Properties.InvokeMode === 'RESPONSE_STREAM' && id.startsWith('ApiLive'));
    expect(urls).toHaveLength(1);
    const [id, url] = urls[0] as [string, { Properties: { Cors: { AllowOrigins: string[] }; TargetFunctionArn: unknown } }];
    expect(url.Properties.Cors.AllowOrigins).toEqual(['https://analytics.example.com']);
    expect(JSON.stringify(url.Properties.TargetFunctionArn)).toContain(logicalIdOf(stack.api.functions.get('live')!));
    const config = JSON.parse(renderValue(outputs(template).DashboardConfig?.Value)) as { liveUrl: string };
    expect(config.liveUrl).toBe(`\${${id}.FunctionUrl}`);
  });

  it('with another OIDC issuer: DashboardConfig names it, no origin needed', () => {
    const { template } = synth({ dashboard: 'false', authIssuer: 'https://id.example.com/realm', authAudience: 'dashboard-client' });
    const urlOf = (prefix: string) => Object.keys(template.findResources('AWS::Lambda::Url')).find((id) => id.startsWith(prefix));
    expect(JSON.parse(renderValue(outputs(template).DashboardConfig?.Value))).toEqual({
      signIn: { type: 'oidc', issuer: 'https://id.example.com/realm', clientId: 'dashboard-client' },
      liveUrl: `\${${urlOf('ApiLive')}.FunctionUrl}`,
      exportUrl: `\${${urlOf('ApiExport')}.FunctionUrl}`,
    });
  });

  it('refuses dashboardOrigin beside the stack’s own dashboard, an origin that is not https, and a dashboard that is not true or false', () => {
    expect(() => synth({ dashboardOrigin: 'https://analytics.example.com' })).toThrow(/dashboardOrigin goes with -c dashboard=false/);
    expect(() => synth({ dashboard: 'false', dashboardOrigin: 'http://analytics.example.com' })).toThrow(/https origin/);
    expect(() => synth({ dashboard: 'false', dashboardOrigin: 'https://analytics.example.com/app' })).toThrow(/https origin/);
    expect(() => synth({ dashboard: 'no' })).toThrow(/context dashboard must be true or false/);
  });
});

describe('names beyond the stack (-c stackName)', () => {
  const ACCOUNT = '123456789012';
  const at = (name: string, region: string, context: Record<string, unknown> = {}) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', ...context } });
    const stack = new TinytrackStack(app, name, { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE, env: { account: ACCOUNT, region } });
    return Template.fromStack(stack);
  };
  /** The names that must be unique in the account (CloudFront) or in the region (Cognito, KMS aliases). */
  const namesOf = (template: Template) => {
    const values = (type: string, pick: (p: Resource['Properties']) => string) => Object.values(resourcesOf(template, type)).map((r) => pick(r.Properties));
    return {
      global: [
        ...values('AWS::CloudFront::ResponseHeadersPolicy', (p) => p.ResponseHeadersPolicyConfig.Name),
        ...values('AWS::CloudFront::Function', (p) => p.Name),
        ...values('AWS::CloudFront::OriginAccessControl', (p) => p.OriginAccessControlConfig.Name),
      ],
      regional: [...values('AWS::Cognito::UserPoolDomain', (p) => p.Domain), ...values('AWS::KMS::Alias', (p) => p.AliasName)],
    };
  };

  it('derives the CloudFront, origin access control and Cognito domain names from the stack name and region', () => {
    expect(namesOf(at('Staging', 'eu-west-1'))).toEqual({
      global: [
        'Staging-eu-west-1-dashboard-headers',
        'Staging-eu-west-1-dashboard-edge-headers',
        'Staging-eu-west-1-page-rewrite',
        'Staging-eu-west-1-not-found-status',
        'Staging-eu-west-1-dashboard-files',
      ],
      regional: [`staging-eu-west-1-${ACCOUNT}`, 'alias/Staging/imports'],
    });
  });

  it('gives two stacks in one account and region, or one stack in two regions, names that never collide', () => {
    const production = namesOf(at('Tinytrack', 'eu-west-1'));
    const staging = namesOf(at('Staging', 'eu-west-1'));
    const elsewhere = namesOf(at('Tinytrack', 'us-east-1'));
    const overlap = (a: string[], b: string[]) => a.filter((n) => b.includes(n));
    expect(overlap(production.regional, staging.regional)).toEqual([]);
    for (const [a, b] of [[production, staging], [production, elsewhere], [staging, elsewhere]] as const) expect(overlap(a.global, b.global)).toEqual([]);
  });

  it('keeps long stack names within each name’s limit, two of them sharing a prefix still apart, and leaves Cognito’s reserved words out', () => {
    const long = 'Analytics-' + 'x'.repeat(100);
    const a = namesOf(at(`${long}A`, 'ap-southeast-2'));
    const b = namesOf(at(`${long}B`, 'ap-southeast-2'));
    const [headers, edgeHeaders, rewrite, status, access] = a.global;
    expect([headers, edgeHeaders].map((n) => n!.length <= 128)).toEqual([true, true]);
    expect([rewrite, status, access].map((n) => n!.length <= 64)).toEqual([true, true, true]);
    expect(a.regional[0]!.length <= 63).toBe(true);
    expect(a.global.filter((n) => b.global.includes(n))).toEqual([]);
    expect(a.regional[0]).not.toBe(b.regional[0]);
    expect(namesOf(at('AwsCognitoAmazonStats', 'eu-west-1')).regional[0]).toBe(`stats-eu-west-1-${ACCOUNT}`);
  });

  it('names the Cognito domain from the stack and region when the account and region are known only at deploy', () => {
    const domain = Object.values(resourcesOf(synth().template, 'AWS::Cognito::UserPoolDomain'))[0]!.Properties.Domain;
    expect(renderValue(domain)).toBe('tinytrack-${AWS::Region}-${AWS::AccountId}');
  });
});
