/**
 * Template assertions for the tinytrack stack: the route table becomes API
 * Gateway routes on the right functions, functions run Node 22 on ARM, the
 * registry table has its keys and recovery, and permissions stay least privilege.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes, routeKey } from '#http/routes.ts';
import type { RouteGroup } from '#http/routes.ts';
import { buildTracker } from '#tracker/build.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';

// Template JSON is untyped; the tests read it like the JSON it is.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

const groups = [...new Set<RouteGroup>(['meta', ...routes.map((r) => r.group)])];
const groupOf = (fn: Resource) => /^tinytrack HTTP routes: (\w+)$/.exec(fn.Properties.Description ?? '')?.[1];
const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** Every statement granted to each role: its inline policies plus attached AWS::IAM::Policy documents. */
function statementsByRole(template: Template): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  for (const [id, role] of Object.entries(template.findResources('AWS::IAM::Role') as Record<string, Resource>)) {
    const inline = (role.Properties.Policies ?? []).flatMap((p: { PolicyDocument: { Statement: Statement[] } }) => p.PolicyDocument.Statement);
    byRole.set(id, inline);
  }
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>)) {
    for (const ref of policy.Properties.Roles as { Ref: string }[]) byRole.get(ref.Ref)?.push(...policy.Properties.PolicyDocument.Statement);
  }
  return byRole;
}

describe('TinytrackStack', () => {
  let app: App;
  let template: Template;
  let functions: Record<string, Resource>;
  /** Function logical id by route group. */
  const fnIdOf = new Map<string, string>();

  beforeAll(async () => {
    app = new App();
    const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: (await buildTracker()).code });
    template = Template.fromStack(stack);
    functions = template.findResources('AWS::Lambda::Function') as Record<string, Resource>;
    for (const [id, fn] of Object.entries(functions)) {
      const group = groupOf(fn);
      if (group) fnIdOf.set(group, id);
    }
  }, 120_000);

  describe('routes', () => {
    /** RouteKey → the function logical id its integration invokes. */
    const targets = () => {
      const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
      const out = new Map<string, string>();
      for (const route of Object.values(template.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>)) {
        const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
        const uri = integrations[integrationId]?.Properties.IntegrationUri;
        out.set(route.Properties.RouteKey, uri['Fn::GetAtt'][0]);
      }
      return out;
    };

    it('creates one API route per table entry plus the preflight and default routes', () => {
      const keys = [...targets().keys()].sort();
      const expected = [...routes.map(routeKey), 'OPTIONS /{proxy+}', '$default'].sort();
      expect(keys).toEqual(expected);
    });

    it('sends each route to its group’s function and the rest to meta', () => {
      const byKey = targets();
      for (const route of routes) expect(byKey.get(routeKey(route)), routeKey(route)).toBe(fnIdOf.get(route.group));
      expect(byKey.get('OPTIONS /{proxy+}')).toBe(fnIdOf.get('meta'));
      expect(byKey.get('$default')).toBe(fnIdOf.get('meta'));
    });

    it('configures no CORS on the API (the handlers answer OPTIONS)', () => {
      const apis = Object.values(template.findResources('AWS::ApiGatewayV2::Api') as Record<string, Resource>);
      expect(apis).toHaveLength(1);
      expect(apis[0]?.Properties.ProtocolType).toBe('HTTP');
      expect(apis[0]?.Properties.CorsConfiguration).toBeUndefined();
    });
  });

  describe('functions', () => {
    it('creates exactly one function per route group', () => {
      expect(Object.values(functions).map(groupOf).sort()).toEqual([...groups].sort());
    });

    it('runs every function on Node 22 and ARM with 512 MB and 10 s', () => {
      for (const fn of Object.values(functions)) {
        expect(fn.Properties.Runtime).toBe('nodejs22.x');
        expect(fn.Properties.Architectures).toEqual(['arm64']);
        expect(fn.Properties.MemorySize).toBe(512);
        expect(fn.Properties.Timeout).toBe(10);
        expect(fn.Properties.Handler).toBe('index.handler');
      }
    });

    it('passes the table, issuer and source-map settings to every function', () => {
      for (const fn of Object.values(functions)) {
        const env = fn.Properties.Environment.Variables;
        expect(Object.keys(env)).toEqual(expect.arrayContaining(['TABLE_NAME', 'AUTH_ISSUER', 'AUTH_AUDIENCE', 'AUTH_JWKS_URI']));
        expect(env.NODE_OPTIONS).toBe('--enable-source-maps');
      }
    });

    it('gives only the collector the event queue', () => {
      for (const [group, id] of fnIdOf) {
        const env = functions[id]?.Properties.Environment.Variables;
        expect('EVENT_QUEUE_URL' in env, group).toBe(group === 'collector');
      }
    });

    it('logs each function to its own group kept one month', () => {
      const logGroups = template.findResources('AWS::Logs::LogGroup') as Record<string, Resource>;
      for (const fn of Object.values(functions)) {
        const id = fn.Properties.LoggingConfig.LogGroup.Ref as string;
        expect(logGroups[id]?.Properties.RetentionInDays).toBe(30);
      }
    });

    it('bundles each function as one minified ESM file under 1 MiB', () => {
      const outdir = app.synth().directory;
      for (const [group, id] of fnIdOf) {
        const key = functions[id]?.Properties.Code.S3Key as string;
        const bundle = join(outdir, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs');
        expect(existsSync(bundle), group).toBe(true);
        expect(statSync(bundle).size, group).toBeLessThan(1024 * 1024);
      }
    });
  });

  describe('registry table', () => {
    it('keys items by pk/sk with the gsi1 index, on demand, with recovery, TTL and retention', () => {
      template.resourceCountIs('AWS::DynamoDB::Table', 1);
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        Properties: {
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
          GlobalSecondaryIndexes: [
            {
              IndexName: 'gsi1',
              KeySchema: [
                { AttributeName: 'gsi1pk', KeyType: 'HASH' },
                { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        },
      });
    });
  });

  describe('permissions', () => {
    it('never grants Action "*"', () => {
      for (const [role, statements] of statementsByRole(template)) {
        for (const s of statements) expect(actionsOf(s), role).not.toContain('*');
      }
    });

    it('gives the meta function no DynamoDB access and the data groups read/write on the table', () => {
      const byRole = statementsByRole(template);
      const dynamoActions = (group: string) => {
        const roleId = functions[fnIdOf.get(group) as string]?.Properties.Role['Fn::GetAtt'][0] as string;
        return (byRole.get(roleId) ?? []).flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:'));
      };
      expect(dynamoActions('meta')).toEqual([]);
      for (const group of ['account', 'sites']) {
        expect(dynamoActions(group), group).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query']));
      }
    });
  });

  describe('identity', () => {
    it('creates a Cognito user pool and a public app client, and outputs their ids', () => {
      template.resourceCountIs('AWS::Cognito::UserPool', 1);
      template.hasResourceProperties('AWS::Cognito::UserPoolClient', { GenerateSecret: false });
      const outputs = Object.keys(template.toJSON().Outputs ?? {});
      expect(outputs).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'UserPoolId', 'UserPoolClientId']));
    });
  });
});

describe('TinytrackStack with an external issuer', () => {
  // No bundling: these tests look at identity settings only.
  const synth = (context: Record<string, string>) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
    return Template.fromStack(new TinytrackStack(app, 'Tinytrack', { trackerScript: '' }));
  };

  it('creates no user pool and passes the issuer to every function', () => {
    const template = synth({ authIssuer: 'https://id.example.com/', authAudience: 'tinytrack-web' });
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function') as Record<string, Resource>)) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        AUTH_ISSUER: 'https://id.example.com/',
        AUTH_AUDIENCE: 'tinytrack-web',
        AUTH_JWKS_URI: 'https://id.example.com/.well-known/jwks.json',
      });
    }
  });

  it('uses authJwksUri when given', () => {
    const template = synth({ authIssuer: 'https://id.example.com', authAudience: 'a', authJwksUri: 'https://keys.example.com/jwks' });
    template.allResourcesProperties('AWS::Lambda::Function', { Environment: { Variables: { AUTH_JWKS_URI: 'https://keys.example.com/jwks' } } });
  });

  it('refuses an issuer without an audience', () => {
    expect(() => synth({ authIssuer: 'https://id.example.com' })).toThrow(/authAudience/);
  });
});
