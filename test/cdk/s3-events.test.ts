/**
 * The S3 event store, the default (issue 44): with no context at all the stack synthesizes with
 * a private, encrypted, TLS-only bucket and a manifest table; the collector gets no S3 access,
 * the public reports only read, the writer only puts and lists, removals may delete; the
 * functions that use it ship DuckDB (x86-64, /tmp for the object cache). Bundling is skipped.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { S3_WRITER } from '../../lib/s3-events.ts';
import { S3_STORE_TMP_MB } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, actionsOf, logicalIdOf, refTarget, resourcesOf, statementsOfFunction, type Resource, type Statement } from './template-helpers.ts';

describe('the stack on S3 (the default)', () => {
  let stack: TinytrackStack;
  let template: Template;
  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
    template = Template.fromStack(stack);
  });

  const bucketId = () => {
    const [id] = Object.entries(resourcesOf(template, 'AWS::S3::Bucket')).find(([, b]) => JSON.stringify(b.Properties.LifecycleConfiguration ?? {}).includes('AbortIncompleteMultipartUpload')) ?? [];
    return id as string;
  };
  const functionWithGroup = (group: string) => logicalIdOf(stack.api.functions.get(group as never) as never);
  /** The S3 and manifest actions of a function, each statement's resource naming the bucket or the manifest. */
  const storeActions = (fnId: string) => {
    const manifestId = Object.keys(resourcesOf(template, 'AWS::DynamoDB::Table')).find((id) => id.includes('EventStoreManifest')) as string;
    const statements: Statement[] = statementsOfFunction(template, fnId);
    const on = (id: string) => statements.filter((s) => JSON.stringify(s.Resource).includes(id)).flatMap(actionsOf);
    return { s3: statements.flatMap(actionsOf).filter((a) => a.startsWith('s3:')), bucket: on(bucketId()), manifest: on(manifestId) };
  };

  it('keeps the files in a private, encrypted bucket that refuses plain http, kept when the stack goes', () => {
    const bucket = resourcesOf(template, 'AWS::S3::Bucket')[bucketId()] as Resource;
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
    expect(bucket.DeletionPolicy).toBe('Retain');
    const policy = Object.values(resourcesOf(template, 'AWS::S3::BucketPolicy')).find((p) => refTarget(p.Properties.Bucket) === bucketId()) as Resource;
    const deny = (policy.Properties.PolicyDocument.Statement as (Statement & { Condition?: unknown })[]).find((s) => s.Effect === 'Deny');
    expect(deny?.Condition).toEqual({ Bool: { 'aws:SecureTransport': 'false' } });
    expect(actionsOf(deny as Statement)).toEqual(['s3:*']);
  });

  it('lists the files of each site-day in a pay-per-request manifest table keyed by site and day', () => {
    const manifest = Object.entries(resourcesOf(template, 'AWS::DynamoDB::Table')).find(([id]) => id.includes('EventStoreManifest'))?.[1] as Resource;
    expect(manifest.Properties.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'day', KeyType: 'RANGE' },
    ]);
    expect(manifest.Properties.BillingMode).toBe('PAY_PER_REQUEST');
    expect(manifest.DeletionPolicy).toBe('Retain');
  });

  it('needs no ClickHouse, Timestream or secret', () => {
    expect(Object.keys(resourcesOf(template, 'AWS::Timestream::Table'))).toHaveLength(0);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/secretsmanager:GetSecretValue|CLICKHOUSE_/);
  });

  it('gives the collector no S3 access and the public reports read access only', () => {
    expect(storeActions(functionWithGroup('collector')).s3).toEqual([]);
    const reports = storeActions(functionWithGroup('reports'));
    expect(reports.bucket.length).toBeGreaterThan(0);
    expect(reports.bucket.filter((a) => !/^s3:(GetObject|GetBucket|List)/.test(a))).toEqual([]);
    expect([...new Set(reports.manifest)].sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
  });

  it('lets the writer put files and list them, never read or delete them', () => {
    const writer = storeActions(logicalIdOf(stack.writer.function));
    expect(writer.bucket.filter((a) => !a.startsWith('s3:PutObject') && a !== 's3:Abort*')).toEqual([]);
    expect([...new Set(writer.manifest)].sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
  });

  it('lets the retention purge delete files and manifest items', () => {
    const purge = storeActions(logicalIdOf(stack.retentionPurge?.function as never));
    expect(purge.bucket).toContain('s3:DeleteObject*');
    expect(purge.manifest).toContain('dynamodb:DeleteItem');
  });

  it('compacts hourly with retries and a dead-letter queue, alarming on undelivered and failed runs; the compaction may read, put and delete', () => {
    const compaction = stack.compaction as NonNullable<typeof stack.compaction>;
    const fnId = logicalIdOf(compaction.function);
    const rule = Object.values(resourcesOf(template, 'AWS::Events::Rule')).find((r) => refTarget(r.Properties.Targets[0].Arn) === fnId) as Resource;
    expect(rule.Properties.ScheduleExpression).toBe('cron(20 * * * ? *)');
    expect(rule.Properties.Targets[0]).toMatchObject({ RetryPolicy: { MaximumRetryAttempts: 2 } });
    expect(refTarget(rule.Properties.Targets[0].DeadLetterConfig.Arn)).toBe(logicalIdOf(compaction.deadLetterQueue));
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => String(a.Properties.AlarmDescription));
    expect(alarms.filter((d) => d.includes('event compaction'))).toHaveLength(2);
    const actions = storeActions(fnId);
    for (const action of ['s3:GetObject*', 's3:PutObject', 's3:DeleteObject*']) expect(actions.bucket).toContain(action);
    for (const action of ['dynamodb:Scan', 'dynamodb:PutItem']) expect(actions.manifest).toContain(action);
  });

  it('runs the functions that use it on x86-64 with /tmp for the object cache, and feeds the writer minute-long batches', () => {
    const users = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).filter((f) => f.Properties.Environment?.Variables?.EVENTS_BUCKET !== undefined);
    expect(users.length).toBeGreaterThan(3);
    for (const fn of users) {
      expect(fn.Properties.Architectures).toEqual(['x86_64']);
      expect(fn.Properties.EphemeralStorage).toEqual({ Size: S3_STORE_TMP_MB });
    }
    const mapping = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).find((m) => refTarget(m.Properties.FunctionName) === logicalIdOf(stack.writer.function));
    expect([mapping?.Properties.BatchSize, mapping?.Properties.MaximumBatchingWindowInSeconds]).toEqual([S3_WRITER.batchSize, S3_WRITER.batchingWindow.toSeconds()]);
  });
});
