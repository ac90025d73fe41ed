/**
 * Template assertions for the tinytrack stack: the route table becomes API
 * Gateway routes on the right functions, the collector has its Function URL,
 * the event queue feeds the writer into Timestream with partial batch
 * failures and a dead-letter queue, salts rotate on schedule, functions run
 * Node 22 on ARM, the registry table has its keys and recovery, and
 * permissions stay least privilege. The imports resources (chunk queue,
 * worker, credential key) have their own file, imports.test.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes, routeKey } from '#http/routes.ts';
import type { RouteGroup } from '#http/routes.ts';
import { buildTracker } from '#tracker/build.ts';
import { GROUP_ACCESS } from '../../lib/api.ts';
import { LIVE_CADENCE } from '#domain/live/live-stream.ts';
import { EVENT_WRITER_ENTRY } from '../../lib/event-writer.ts';
import { TIMESTREAM_WRITER } from '../../lib/timestream.ts';
import { LAZY_MODULES, PROJECT_ROOT } from '../../lib/node-function.ts';
import { buildOpenApi } from '#http/openapi.ts';
import { pathToFileURL } from 'node:url';
import { httpApiEvent } from '../support/lambda-events.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { SESSION_PATHS } from '#domain/dashboard-session.ts';
import { BUCKET_DEPLOYMENT_HELPER, DASHBOARD_FIXTURE, actionsOf, actionsOfFunction, logicalIdOf, refTarget, renderValue, statementsByRole, statementsOfFunction, type ConditionedStatement, type Resource } from './template-helpers.ts';

const groups = [...new Set<RouteGroup>(['meta', ...routes.map((r) => r.group)])];
const groupOf = (fn: Resource) => /^tinytrack HTTP routes: (\w+)$/.exec(fn.Properties.Description ?? '')?.[1];

describe('TinytrackStack', () => {
  let app: App;
  let stack: TinytrackStack;
  let template: Template;
  let functions: Record<string, Resource>;
  /** Function logical id by route group. */
  const fnIdOf = new Map<string, string>();
  /** The logical id of a route group's Function URL. */
  const functionUrlIdOf = (group: RouteGroup) => {
    const ids = Object.entries(template.findResources('AWS::Lambda::Url') as Record<string, Resource>)
      .filter(([, url]) => refTarget(url.Properties.TargetFunctionArn) === fnIdOf.get(group))
      .map(([id]) => id);
    expect(ids, group).toHaveLength(1);
    return ids[0] as string;
  };
  const functionUrlOf = (group: RouteGroup) => template.findResources('AWS::Lambda::Url')[functionUrlIdOf(group)] as Resource;

  beforeAll(async () => {
    app = new App({ context: { eventStore: 'timestream' } });
    stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: (await buildTracker()).code, dashboardDir: DASHBOARD_FIXTURE });
    template = Template.fromStack(stack);
    // The service's own functions: the CDK's file-upload helper of the dashboard (test/cdk/dashboard.test.ts) is not one.
    functions = Object.fromEntries(
      Object.entries(template.findResources('AWS::Lambda::Function') as Record<string, Resource>).filter(([id]) => !id.startsWith(BUCKET_DEPLOYMENT_HELPER)),
    );
    for (const [id, fn] of Object.entries(functions)) {
      const group = groupOf(fn);
      if (group) fnIdOf.set(group, id);
    }
  }, 300_000);

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
      // The live stream's routes are on its own streaming Function URL only (API Gateway buffers answers).
      // The dashboard's embed page and session routes (lib/dashboard-edge.ts) are on the API as well, for CloudFront.
      const dashboardEdge = ['GET /embed/{slug}', ...Object.values(SESSION_PATHS).map((p) => `POST ${p}`)];
      const expected = [...routes.filter((r) => !GROUP_ACCESS[r.group].streaming).map(routeKey), ...dashboardEdge, 'OPTIONS /{proxy+}', '$default'].sort();
      expect(keys).toEqual(expected);
    });

    it('sends each route to its group’s function and the rest to meta', () => {
      const byKey = targets();
      for (const route of routes) expect(byKey.get(routeKey(route)), routeKey(route)).toBe(GROUP_ACCESS[route.group].streaming ? undefined : fnIdOf.get(route.group));
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
    it('creates exactly one function per route group, plus the dashboard’s embed and session functions, the event writer, the import worker, the salt rotation, the alert checks, the digest sends and the crawler sync', () => {
      expect(Object.values(functions).map(groupOf).filter(Boolean).sort()).toEqual([...groups].sort());
      const workers = [
        stack.dashboardEdge!.embed,
        stack.dashboardEdge!.session!,
        stack.writer.function,
        stack.imports.worker,
        stack.schedules.rotateSalts,
        stack.schedules.alertChecks,
        stack.schedules.digestSends,
        stack.schedules.crawlerSync,
      ];
      expect(Object.keys(functions).sort()).toEqual([...fnIdOf.values(), ...workers.map(logicalIdOf)].sort());
    });

    it('runs every function on Node 22 and ARM from index.handler', () => {
      for (const [id, fn] of Object.entries(functions)) {
        expect(fn.Properties.Runtime, id).toBe('nodejs22.x');
        expect(fn.Properties.Architectures, id).toEqual(['arm64']);
        expect(fn.Properties.Handler, id).toBe('index.handler');
      }
    });

    it('gives the HTTP functions 512 MB and 10 s, imports (its 20 s credential test), digests (a workspace preview reads every site), search (a sync in the request), crawlers (a sync reads up to 72 hours) and data (an erasure waits for its deletions) 28 s under API Gateway’s 30 s, the live stream and the export 15 minutes', () => {
      for (const [group, id] of fnIdOf) {
        const fn = functions[id] as Resource;
        expect(fn.Properties.MemorySize, group).toBe(512);
        expect(fn.Properties.Timeout, group).toBe(GROUP_ACCESS[group as RouteGroup].timeoutSeconds);
        if (group === 'live') {
          // Lambda's maximum; a stream ends itself 30 s before (LIVE_STREAM_MAX_MS).
          expect(fn.Properties.Timeout).toBe(900);
          expect(LIVE_CADENCE.maxMs).toBeLessThan(900_000);
          continue;
        }
        // The export streams a file of up to EXPORT_MAX_ROWS rows: Lambda's maximum (test/cdk/export.test.ts).
        if (group === 'export') {
          expect(fn.Properties.Timeout).toBe(900);
          continue;
        }
        expect(fn.Properties.Timeout, group).toBe(['imports', 'digests', 'search', 'crawlers', 'data'].includes(group) ? 28 : 10);
        expect(fn.Properties.Timeout, group).toBeLessThan(30);
      }
    });

    it('passes the table to the HTTP and scheduled functions, the issuer only to the groups that authenticate callers, and source maps to the workers alone', () => {
      const issuer = ['AUTH_ISSUER', 'AUTH_AUDIENCE', 'AUTH_JWKS_URI'];
      for (const [group, id] of fnIdOf) {
        const env = (functions[id] as Resource).Properties.Environment.Variables;
        expect('TABLE_NAME' in env, group).toBe(true);
        for (const name of issuer) expect(name in env, `${group} ${name}`).toBe(GROUP_ACCESS[group as RouteGroup].callers);
      }
      expect(['meta', 'collector'].filter((g) => GROUP_ACCESS[g as RouteGroup].callers)).toEqual([]);
      const rotation = (functions[logicalIdOf(stack.schedules.rotateSalts)] as Resource).Properties.Environment.Variables;
      expect(Object.keys(rotation).sort()).toEqual(['NODE_OPTIONS', 'TABLE_NAME']);
      const answersRequests = (id: string, fn: Resource) => groupOf(fn) !== undefined || [stack.dashboardEdge!.embed, stack.dashboardEdge!.session!].map(logicalIdOf).includes(id);
      for (const [id, fn] of Object.entries(functions)) {
        expect(fn.Properties.Environment.Variables.NODE_OPTIONS, id).toBe(answersRequests(id, fn) ? undefined : '--enable-source-maps');
      }
    });

    it('gives only the collector and ingest the event queue', () => {
      for (const [id, fn] of Object.entries(functions)) {
        const env = fn.Properties.Environment.Variables;
        expect('EVENT_QUEUE_URL' in env, id).toBe(id === fnIdOf.get('collector') || id === fnIdOf.get('ingest'));
      }
    });

    it('tells ingest that a Timestream store keeps no API requests (API_REQUESTS=off: 501 before queueing)', () => {
      const ingest = functions[fnIdOf.get('ingest') as string];
      expect(ingest?.Properties.Environment.Variables.API_REQUESTS).toBe('off');
      for (const [id, fn] of Object.entries(functions)) if (id !== fnIdOf.get('ingest')) expect('API_REQUESTS' in fn.Properties.Environment.Variables, id).toBe(false);
    });

    it('gives only the event writer, the import worker, the reports, goals, digests, live, crawlers and export functions, the alert checks, the digest sends and the crawler sync the event store', () => {
      const withStore = [
        logicalIdOf(stack.writer.function),
        logicalIdOf(stack.imports.worker),
        fnIdOf.get('reports'),
        fnIdOf.get('goals'),
        fnIdOf.get('digests'),
        fnIdOf.get('live'),
        fnIdOf.get('crawlers'),
        fnIdOf.get('export'),
        logicalIdOf(stack.schedules.alertChecks),
        logicalIdOf(stack.schedules.digestSends),
        logicalIdOf(stack.schedules.crawlerSync),
      ].sort();
      const database = template.findResources('AWS::Timestream::Database');
      const table = template.findResources('AWS::Timestream::Table');
      for (const [id, fn] of Object.entries(functions)) {
        const env = fn.Properties.Environment.Variables;
        if (!withStore.includes(id)) {
          expect('TIMESTREAM_DATABASE' in env || 'TIMESTREAM_TABLE' in env, id).toBe(false);
          continue;
        }
        expect(Object.keys(database)).toContain(refTarget(env.TIMESTREAM_DATABASE));
        expect(Object.keys(table)).toContain(refTarget(env.TIMESTREAM_TABLE));
        expect(env.TIMESTREAM_TABLE['Fn::GetAtt'][1]).toBe('Name');
      }
    });

    it('logs each function to its own group kept one month', () => {
      const logGroups = template.findResources('AWS::Logs::LogGroup') as Record<string, Resource>;
      const used = new Set<string>();
      for (const fn of Object.values(functions)) {
        const id = fn.Properties.LoggingConfig.LogGroup.Ref as string;
        expect(logGroups[id]?.Properties.RetentionInDays).toBe(30);
        used.add(id);
      }
      expect(used.size).toBe(Object.keys(functions).length);
    });

    it('bundles each function as one minified ESM file under 1 MiB, each lazily loaded package it names beside it', () => {
      const outdir = app.synth().directory;
      for (const [id, fn] of Object.entries(functions)) {
        const key = fn.Properties.Code.S3Key as string;
        const asset = join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
        const bundle = join(asset, 'index.mjs');
        expect(existsSync(bundle), id).toBe(true);
        expect(statSync(bundle).size, id).toBeLessThan(1024 * 1024);
        const code = readFileSync(bundle, 'utf8');
        for (const name of LAZY_MODULES) expect(existsSync(join(asset, 'node_modules', name, 'index.js')), `${id} ${name}`).toBe(code.includes(`"${name}"`));
      }
      const collector = functions[fnIdOf.get('collector') as string] as Resource;
      const collectorAsset = join(outdir, `asset.${(collector.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
      for (const name of LAZY_MODULES) expect(existsSync(join(collectorAsset, 'node_modules', name, 'index.js')), name).toBe(true);
    });
  });

  it('serves the whole OpenAPI document from the deployed meta bundle, which inlines it gzipped', async () => {
    const document = JSON.stringify(buildOpenApi());
    const meta = functions[fnIdOf.get('meta') as string] as Resource;
    const bundle = join(app.synth().directory, `asset.${(meta.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`, 'index.mjs');
    const { handler } = (await import(pathToFileURL(bundle).href)) as { handler: (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }> };
    const answer = await handler(httpApiEvent('GET /api/openapi.json', { method: 'GET', url: '/api/openapi.json' }), {});
    expect([answer.statusCode, answer.body]).toEqual([200, document]);
  });

  describe('live stream Function URL', () => {
    it('is, with the export’s (test/cdk/export.test.ts), the only other Function URL: streamed, without IAM auth (the handler takes ID tokens and tickets), CORS for the dashboard alone', () => {
      expect(Object.keys(template.findResources('AWS::Lambda::Url'))).toHaveLength(3);
      expect(functionUrlIdOf('export')).toBeDefined();
      const url = functionUrlOf('live');
      expect([url.Properties.AuthType, url.Properties.InvokeMode]).toEqual(['NONE', 'RESPONSE_STREAM']);
      const origin = renderValue(stack.resolve((stack.dashboard as NonNullable<typeof stack.dashboard>).origin));
      expect({ ...url.Properties.Cors, AllowOrigins: url.Properties.Cors.AllowOrigins.map(renderValue) }).toEqual({
        AllowOrigins: [origin],
        AllowMethods: ['GET', 'POST'],
        AllowHeaders: ['authorization'],
        MaxAge: 86400,
      });
    });

    it('is a stack output, and the dashboard’s config.json names it', () => {
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
      expect(outputs.LiveUrl?.Value).toEqual({ 'Fn::GetAtt': [functionUrlIdOf('live'), 'FunctionUrl'] });
      expect(JSON.stringify(template.findResources('Custom::CDKBucketDeployment'))).toContain(functionUrlIdOf('live'));
    });

    it('reads sites and the event store, and of the registry otherwise only tickets and its account’s slots', () => {
      const statements = (statementsOfFunction(template, fnIdOf.get('live') as string) as ConditionedStatement[]).filter((st) => JSON.stringify(st.Action).includes('dynamodb:'));
      const byKeys = statements.map((st) => [st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'], st.Action].map((v) => JSON.stringify(v)).join(' '));
      expect(byKeys.sort()).toEqual(
        [
          '["LIVE#*"] ["dynamodb:PutItem","dynamodb:UpdateItem","dynamodb:DeleteItem","dynamodb:Query"]',
          '["LIVETICKET#*"] ["dynamodb:PutItem","dynamodb:DeleteItem"]',
          '["SITE#*"] "dynamodb:GetItem"',
        ].sort(),
      );
    });
  });

  describe('collector Function URL', () => {
    it('serves the collector function without auth, with CORS for any origin', () => {
      const url = functionUrlOf('collector');
      expect(url.Properties.InvokeMode).toBeUndefined();
      expect(url.Properties.AuthType).toBe('NONE');
      expect(url.Properties.Cors).toEqual({
        AllowOrigins: ['*'],
        AllowMethods: ['GET', 'POST', 'HEAD'],
        AllowHeaders: ['content-type'],
        MaxAge: 86400,
      });
      expect(url.Properties.Cors.AllowCredentials).toBeUndefined();
    });

    it('lets anyone invoke the collector, the live stream and the export through their URLs only', () => {
      const permissions = Object.values(template.findResources('AWS::Lambda::Permission') as Record<string, Resource>).filter(
        (p) => p.Properties.Principal === '*',
      );
      expect(permissions.length).toBeGreaterThan(0);
      for (const p of permissions) {
        expect([fnIdOf.get('collector'), fnIdOf.get('live'), fnIdOf.get('export')]).toContain(refTarget(p.Properties.FunctionName));
        const viaUrl = p.Properties.FunctionUrlAuthType === 'NONE' || p.Properties.InvokedViaFunctionUrl === true;
        expect(viaUrl, JSON.stringify(p.Properties)).toBe(true);
      }
      expect(permissions.map((p) => p.Properties.Action)).toContain('lambda:InvokeFunctionUrl');
    });

    it('is a stack output', () => {
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
      expect(outputs.CollectorUrl?.Value).toEqual({ 'Fn::GetAtt': [functionUrlIdOf('collector'), 'FunctionUrl'] });
    });

    it('keeps the collector routes on the HTTP API as well (one origin with the product API)', () => {
      const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>).map((r) => r.Properties.RouteKey);
      for (const route of routes.filter((r) => r.group === 'collector')) expect(keys).toContain(routeKey(route));
    });

    it('gives the verifying functions PUBLIC_URL: the API, the Function URL (not its own) and nothing else', () => {
      const url = functionUrlIdOf('collector');
      const api = Object.keys(template.findResources('AWS::ApiGatewayV2::Api'))[0] as string;
      const publicUrl = (group: string) => renderValue((functions[fnIdOf.get(group) as string] as Resource).Properties.Environment.Variables.PUBLIC_URL);
      expect(publicUrl('sites')).toBe(`\${${api}.ApiEndpoint},\${${url}.FunctionUrl}`);
      // Its own URL would be a dependency cycle (Template.fromStack refuses those); the collector counts the domain a beacon arrived on.
      expect(publicUrl('collector')).toBe(`\${${api}.ApiEndpoint}`);
      for (const [group, id] of fnIdOf) {
        if (group === 'digests') continue;
        expect('PUBLIC_URL' in (functions[id] as Resource).Properties.Environment.Variables, group).toBe(GROUP_ACCESS[group as RouteGroup].verifiesSites);
      }
    });

    it('gives the digests function and the digest sends the dashboard’s origin as PUBLIC_URL: where their links point', () => {
      const origin = renderValue(stack.resolve((stack.dashboard as NonNullable<typeof stack.dashboard>).origin));
      expect(origin).toMatch(/^https:\/\/\$\{\w+\.DomainName\}$/);
      for (const id of [fnIdOf.get('digests') as string, logicalIdOf(stack.schedules.digestSends)]) {
        expect(renderValue((functions[id] as Resource).Properties.Environment.Variables.PUBLIC_URL), id).toBe(origin);
      }
    });
  });

  describe('event pipeline', () => {
    /** The event queue and its dead-letter queue (the import queue has its own tests). */
    const queueIds = () => ({
      queues: template.findResources('AWS::SQS::Queue') as Record<string, Resource>,
      main: logicalIdOf(stack.events.queue),
      dlq: logicalIdOf(stack.events.deadLetterQueue),
    });

    it(`has the writer's Lambda entry ${EVENT_WRITER_ENTRY}`, () => {
      expect(existsSync(join(PROJECT_ROOT, EVENT_WRITER_ENTRY)), EVENT_WRITER_ENTRY).toBe(true);
    });

    it('feeds the event queue to the writer in batches of 100 within 5 s, reporting item failures', () => {
      const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping') as Record<string, Resource>).filter(
        (m) => refTarget(m.Properties.FunctionName) === logicalIdOf(stack.writer.function),
      );
      expect(mappings).toHaveLength(1);
      const m = mappings[0] as Resource;
      expect(refTarget(m.Properties.EventSourceArn)).toBe(queueIds().main);
      expect(m.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      expect(m.Properties.BatchSize).toBe(100);
      expect(m.Properties.MaximumBatchingWindowInSeconds).toBe(5);
    });

    it('keeps a message invisible for at least six writer timeouts', () => {
      const { queues, main } = queueIds();
      const writer = functions[logicalIdOf(stack.writer.function)] as Resource;
      expect(writer.Properties.Timeout).toBe(TIMESTREAM_WRITER.timeout.toSeconds());
      expect(queues[main]?.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * writer.Properties.Timeout);
    });

    it('moves a message to the dead-letter queue after 5 receives and keeps it 14 days', () => {
      const { queues, main, dlq } = queueIds();
      expect(queues[main]?.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 5 });
      expect(queues[dlq]?.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
        MetricName: 'ApproximateNumberOfMessagesVisible',
      });
    });

    it('encrypts every queue and refuses plain HTTP on each', () => {
      const { queues } = queueIds();
      for (const q of Object.values(queues)) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
      const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy') as Record<string, Resource>);
      const guarded = policies.flatMap((p) => {
        const denies = (p.Properties.PolicyDocument.Statement as { Effect: string; Condition?: unknown }[]).some(
          (st) => st.Effect === 'Deny' && JSON.stringify(st.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
        );
        return denies ? (p.Properties.Queues as unknown[]).map(refTarget) : [];
      });
      expect(guarded.sort()).toEqual(Object.keys(queues).sort());
    });
  });

  describe('event store (Timestream)', () => {
    it('creates one database and one table, kept when the stack goes', () => {
      const databases = template.findResources('AWS::Timestream::Database') as Record<string, Resource>;
      const tables = template.findResources('AWS::Timestream::Table') as Record<string, Resource>;
      expect(Object.keys(databases)).toHaveLength(1);
      expect(Object.keys(tables)).toHaveLength(1);
      const [dbId, db] = Object.entries(databases)[0] as [string, Resource];
      const table = Object.values(tables)[0] as Resource;
      expect(db.DeletionPolicy).toBe('Retain');
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.Properties.DatabaseName).toEqual({ Ref: dbId });
    });

    it('keeps a day in the memory store, the maximum in the magnetic store, and accepts late rows', () => {
      const table = Object.values(template.findResources('AWS::Timestream::Table') as Record<string, Resource>)[0] as Resource;
      expect(table.Properties.RetentionProperties).toEqual({ MemoryStoreRetentionPeriodInHours: '24', MagneticStoreRetentionPeriodInDays: '73000' });
      expect(table.Properties.MagneticStoreWriteProperties.EnableMagneticStoreWrites).toBe(true);
      const rejected = table.Properties.MagneticStoreWriteProperties.MagneticStoreRejectedDataLocation.S3Configuration;
      expect(Object.keys(template.findResources('AWS::S3::Bucket'))).toContain(refTarget(rejected.BucketName));
      expect(rejected.EncryptionOption).toBe('SSE_S3');
      expect(table.Properties.Schema.CompositePartitionKey).toEqual([{ Type: 'DIMENSION', Name: 'site', EnforcementInRecord: 'OPTIONAL' }]);
    });
  });

  describe('schedules', () => {
    it('rotates salts daily at 00:00 UTC with the salt rotation worker', () => {
      const rules = Object.values(template.findResources('AWS::Events::Rule') as Record<string, Resource>);
      expect(rules).toHaveLength(4);
      const rule = rules.find((r) => refTarget(r.Properties.Targets[0].Arn) === logicalIdOf(stack.schedules.rotateSalts)) as Resource;
      expect(rule.Properties.ScheduleExpression).toBe('cron(0 0 * * ? *)');
      expect(rule.Properties.State).toBe('ENABLED');
      expect(rule.Properties.Targets).toHaveLength(1);
      expect(refTarget(rule.Properties.Targets[0].Arn)).toBe(logicalIdOf(stack.schedules.rotateSalts));
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [logicalIdOf(stack.schedules.rotateSalts), 'Arn'] },
      });
    });

    it('sends due e-mail digests every quarter hour (07:00 comes on time in zones a half or quarter hour off UTC)', () => {
      const rules = Object.values(template.findResources('AWS::Events::Rule') as Record<string, Resource>);
      const rule = rules.find((r) => refTarget(r.Properties.Targets[0].Arn) === logicalIdOf(stack.schedules.digestSends)) as Resource;
      expect(rule.Properties.ScheduleExpression).toBe('cron(0/15 * * * ? *)');
      expect(rule.Properties.Targets[0].DeadLetterConfig).toBeDefined();
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
    const statementsOf = (fnId: string | undefined) => statementsOfFunction(template, fnId);
    const actionsOfFn = (fnId: string | undefined, prefix: string) => actionsOfFunction(template, fnId, prefix);
    const tableArn = () => ({ 'Fn::GetAtt': [Object.keys(template.findResources('AWS::Timestream::Table'))[0], 'Arn'] });
    const writerId = () => logicalIdOf(stack.writer.function);

    it('never grants Action "*" nor a service wildcard', () => {
      for (const [role, statements] of statementsByRole(template)) {
        for (const s of statements) {
          expect(actionsOf(s), role).not.toContain('*');
          for (const a of actionsOf(s)) expect(a, role).not.toMatch(/:\*$/);
        }
      }
    });

    it('grants Resource "*" only for Timestream endpoint discovery', () => {
      for (const [role, statements] of statementsByRole(template)) {
        for (const s of statements) {
          const resources = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
          if (resources.includes('*')) expect(actionsOf(s), role).toEqual(['timestream:DescribeEndpoints']);
        }
      }
    });

    it('lets the reports function query the Timestream table and nothing more', () => {
      const statements = statementsOf(fnIdOf.get('reports')).filter((s) => actionsOf(s).some((a) => a.startsWith('timestream:')));
      expect(statements.flatMap(actionsOf).sort()).toEqual(['timestream:DescribeEndpoints', 'timestream:DescribeTable', 'timestream:Select']);
      const select = statements.find((s) => actionsOf(s).includes('timestream:Select'));
      expect(select?.Resource).toEqual(tableArn());
    });

    it('lets the event writer write records to the Timestream table, and gives it no registry access', () => {
      const statements = statementsOf(writerId()).filter((s) => actionsOf(s).some((a) => a.startsWith('timestream:')));
      expect(statements.flatMap(actionsOf).sort()).toEqual(['timestream:DescribeEndpoints', 'timestream:WriteRecords']);
      expect(statements.find((s) => actionsOf(s).includes('timestream:WriteRecords'))?.Resource).toEqual(tableArn());
      expect(actionsOfFn(writerId(), 'dynamodb:')).toEqual([]);
      expect(actionsOfFn(writerId(), 'sqs:')).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
      expect(actionsOfFn(writerId(), 'sqs:')).not.toContain('sqs:SendMessage');
    });

    it('gives Timestream access to the writer, the import worker, the reports, goals, digests, live, crawlers and export functions, the alert checks, the digest sends and the crawler sync only', () => {
      const readers = [
        writerId(),
        logicalIdOf(stack.imports.worker),
        fnIdOf.get('reports'),
        fnIdOf.get('goals'),
        fnIdOf.get('digests'),
        fnIdOf.get('live'),
        fnIdOf.get('crawlers'),
        fnIdOf.get('export'),
        logicalIdOf(stack.schedules.alertChecks),
        logicalIdOf(stack.schedules.digestSends),
        logicalIdOf(stack.schedules.crawlerSync),
      ];
      for (const id of Object.keys(functions)) {
        if (readers.includes(id)) continue;
        expect(actionsOfFn(id, 'timestream:'), id).toEqual([]);
      }
    });
  });

  describe('identity', () => {
    it('creates a Cognito user pool and a public app client, and outputs their ids', () => {
      template.resourceCountIs('AWS::Cognito::UserPool', 1);
      template.hasResourceProperties('AWS::Cognito::UserPoolClient', { GenerateSecret: false });
      const outputs = Object.keys(template.toJSON().Outputs ?? {});
      expect(outputs).toEqual(expect.arrayContaining(['ApiUrl', 'CollectorUrl', 'TableName', 'UserPoolId', 'UserPoolClientId']));
    });
  });
});

describe('TinytrackStack with an external issuer', () => {
  // No bundling: these tests look at identity settings only.
  const synth = (context: Record<string, string>) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', ...context } });
    return Template.fromStack(new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE }));
  };

  /** The route groups that authenticate callers; no worker, no schedule, neither meta nor the collector verifies a token. */
  const CALLER_GROUPS = (Object.keys(GROUP_ACCESS) as RouteGroup[]).filter((g) => GROUP_ACCESS[g].callers);
  const issuerFunctions = (template: Template) =>
    Object.values(template.findResources('AWS::Lambda::Function') as Record<string, Resource>).filter((fn) =>
      CALLER_GROUPS.some((g) => fn.Properties.Description === `tinytrack HTTP routes: ${g}`),
    );

  it('creates no user pool and passes the issuer to the route groups that authenticate callers, and to no other function', () => {
    const template = synth({ authIssuer: 'https://id.example.com/', authAudience: 'tinytrack-web' });
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    const fns = issuerFunctions(template);
    expect(fns.length).toBe(CALLER_GROUPS.length);
    const others = Object.values(template.findResources('AWS::Lambda::Function') as Record<string, Resource>).filter((fn) => !fns.includes(fn));
    for (const fn of others) expect('AUTH_ISSUER' in (fn.Properties.Environment?.Variables ?? {}), fn.Properties.Description).toBe(false);
    for (const fn of fns) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        AUTH_ISSUER: 'https://id.example.com/',
        AUTH_AUDIENCE: 'tinytrack-web',
        AUTH_JWKS_URI: 'https://id.example.com/.well-known/jwks.json',
      });
    }
  });

  it('uses authJwksUri when given', () => {
    const template = synth({ authIssuer: 'https://id.example.com', authAudience: 'a', authJwksUri: 'https://keys.example.com/jwks' });
    for (const fn of issuerFunctions(template)) expect(fn.Properties.Environment.Variables.AUTH_JWKS_URI).toBe('https://keys.example.com/jwks');
  });

  it('refuses an issuer without an audience', () => {
    expect(() => synth({ authIssuer: 'https://id.example.com' })).toThrow(/authAudience/);
  });

  it('adds the context publicUrls to PUBLIC_URL of the verifying functions, and refuses a bad one', () => {
    const template = synth({ publicUrls: 'https://t.example.com, https://cdn.example.com/tt' });
    // The digests' PUBLIC_URL is the dashboard's origin (their links), not where latest.js is served.
    const withPublicUrl = Object.values(template.findResources('AWS::Lambda::Function') as Record<string, Resource>).filter(
      (fn) => 'PUBLIC_URL' in fn.Properties.Environment.Variables && !/digest/i.test(JSON.stringify(fn.Properties.Description)),
    );
    expect(withPublicUrl.length).toBe(2);
    for (const fn of withPublicUrl) expect(renderValue(fn.Properties.Environment.Variables.PUBLIC_URL)).toMatch(/,https:\/\/t\.example\.com,https:\/\/cdn\.example\.com\/tt$/);
    expect(() => synth({ publicUrls: 'ftp://t.example.com' })).toThrow(/PUBLIC_URL/);
  });
});
