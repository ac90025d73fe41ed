/**
 * The retention purge and erasure on AWS (issue 42): a worker called daily at 00:00 UTC by an
 * EventBridge rule with a dead-letter queue and alarms; of the registry it may only read a site's
 * fields and write its last run (every request the purge's registry calls send is allowed, a
 * whole-item read or another attribute is not); it writes the event store. The `data` route
 * group and the worker get RETENTION_MAX_MONTHS from the context, as does the sites group. On
 * Timestream there is no purge, and the `data` group has no event store access. The daily
 * rollup warm-up (issue 43) has the same schedule's parts at 00:05 and reads only a site's fields.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import type { NodeFunction } from '../../lib/node-function.ts';
import {
  actionsOf,
  allowsRequest,
  DASHBOARD_FIXTURE,
  itemRequestOf,
  logicalIdOf,
  refTarget,
  resourcesOf,
  statementsOfFunction,
  tableArns,
  type ConditionedStatement,
  type Resource,
} from './template-helpers.ts';

const CLICKHOUSE = {
  clickhouseUrl: 'https://abc123.eu-west-1.aws.clickhouse.cloud:8443',
  clickhouseSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-AbCdEf',
  clickhouseReaderSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-reports-GhIjKl',
};

const synth = (context: Record<string, unknown>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  return { stack, template: Template.fromStack(stack) };
};
const dynamoStatements = (template: Template, fnId: string) =>
  statementsOfFunction(template, fnId).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:'))) as ConditionedStatement[];

describe('the retention purge on AWS', () => {
  const { stack, template } = synth({ ...CLICKHOUSE, retentionMaxMonths: 36 });
  const purge = stack.retentionPurge as NonNullable<typeof stack.retentionPurge>;
  const purgeId = logicalIdOf(purge.function);
  const functions = resourcesOf(template, 'AWS::Lambda::Function');

  it('runs daily at 00:00 UTC with retries and a dead-letter queue, and alarms on undelivered and failed runs', () => {
    const rule = Object.values(resourcesOf(template, 'AWS::Events::Rule')).find((r) => refTarget(r.Properties.Targets[0].Arn) === purgeId) as Resource;
    expect(rule.Properties.ScheduleExpression).toBe('cron(0 0 * * ? *)');
    expect(rule.Properties.Targets[0]).toMatchObject({ RetryPolicy: { MaximumRetryAttempts: 2 } });
    expect(refTarget(rule.Properties.Targets[0].DeadLetterConfig.Arn)).toBe(logicalIdOf(purge.deadLetterQueue));
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => String(a.Properties.AlarmDescription));
    expect(alarms.filter((d) => d.includes('retention purge'))).toHaveLength(2);
  });

  it('gives the operator’s maximum to the worker and to the sites group (PATCH)', () => {
    const env = (id: string) => functions[id]?.Properties.Environment.Variables as Record<string, unknown>;
    expect(env(purgeId).RETENTION_MAX_MONTHS).toBe('36');
    expect(env(logicalIdOf(stack.api.functions.get('sites') as NodeFunction)).RETENTION_MAX_MONTHS).toBe('36');
  });

  it('may read a site’s fields and write its last run only, and allows every request the purge’s registry calls send', async () => {
    const statements = dynamoStatements(template, purgeId);
    expect(statements.flatMap(actionsOf).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    const arns = tableArns(logicalIdOf(stack.storage.table));
    const doc = mockClient(DynamoDBDocumentClient);
    doc.on(GetCommand).resolves({ Item: { pk: 'SITE#a.example', sk: 'SITE', hostname: 'a.example', owner_uid: 'u1' } });
    doc.on(UpdateCommand).resolves({});
    try {
      const registry = new DynamoRegistry(new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }), 'table');
      await registry.getSite('a.example');
      await registry.recordPurge('a.example', 'u1', { at: '2026-01-01T00:00:00.000Z', retention_months: 25, cutoff: '2023-12-02T00:00:00.000Z', rows_removed: 3, oldest_row_kept: null });
      const requests = doc.calls().map((call) => itemRequestOf(call.args[0] as never, arns.table));
      expect(requests.map((r) => r.action)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
      for (const request of requests) expect(allowsRequest(statements, request), JSON.stringify(request)).toBe(true);
    } finally {
      doc.restore();
    }
    const site = { resource: arns.table, pk: 'SITE#a.example' };
    expect(allowsRequest(statements, { ...site, action: 'dynamodb:GetItem', attributes: ['pk', 'sk'], select: 'ALL_ATTRIBUTES' })).toBe(false);
    expect(allowsRequest(statements, { ...site, action: 'dynamodb:UpdateItem', attributes: ['pk', 'sk', 'retention_months'] })).toBe(false);
    expect(allowsRequest(statements, { ...site, action: 'dynamodb:GetItem', attributes: ['pk', 'sk', 'sealed'], select: 'SPECIFIC_ATTRIBUTES' })).toBe(false);
  });

  it('writes the event store, as the data group does', () => {
    for (const id of [purgeId, logicalIdOf(stack.api.functions.get('data') as NodeFunction)]) {
      expect(functions[id]?.Properties.Environment.Variables.CLICKHOUSE_URL, id).toBe(CLICKHOUSE.clickhouseUrl);
    }
  });
});

describe('the rollup warm-up on AWS (issue 43)', () => {
  const { stack, template } = synth(CLICKHOUSE);
  const warm = stack.rollupWarm as NonNullable<typeof stack.rollupWarm>;
  const warmId = logicalIdOf(warm.function);

  it('runs daily at 00:05 UTC (after the purge) with retries and a dead-letter queue, alarms on undelivered and failed runs, and may only read a site’s fields', () => {
    const rule = Object.values(resourcesOf(template, 'AWS::Events::Rule')).find((r) => refTarget(r.Properties.Targets[0].Arn) === warmId) as Resource;
    expect(rule.Properties.ScheduleExpression).toBe('cron(5 0 * * ? *)');
    expect(rule.Properties.Targets[0]).toMatchObject({ RetryPolicy: { MaximumRetryAttempts: 2 } });
    expect(refTarget(rule.Properties.Targets[0].DeadLetterConfig.Arn)).toBe(logicalIdOf(warm.deadLetterQueue));
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => String(a.Properties.AlarmDescription));
    expect(alarms.filter((d) => d.includes('rollup warm-up'))).toHaveLength(2);
    expect(dynamoStatements(template, warmId).flatMap(actionsOf)).toEqual(['dynamodb:GetItem']);
  });
});

describe('retention on Timestream', () => {
  it('has no purge and no rollup warm-up, and the data group no event store', () => {
    const { stack, template } = synth({ eventStore: 'timestream' });
    expect(stack.retentionPurge).toBeNull();
    expect(stack.rollupWarm).toBeNull();
    const env = resourcesOf(template, 'AWS::Lambda::Function')[logicalIdOf(stack.api.functions.get('data') as NodeFunction)]?.Properties.Environment.Variables;
    expect(env.TIMESTREAM_DATABASE).toBeUndefined();
  });
});
