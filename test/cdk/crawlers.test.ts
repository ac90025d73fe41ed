/**
 * Template assertions for crawler hits on AWS (issue 41): the `crawlers`
 * route group and the hourly sync worker get the Cloudflare base URL (the
 * context's when given), the token key only under the crawler context, and
 * the sync runs every hour. These tests skip bundling.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NodeFunction } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, logicalIdOf, refTarget, resourcesOf, statementsOfFunction, type ConditionedStatement, type Resource } from './template-helpers.ts';

describe('TinytrackStack crawlers', () => {
  let stack: TinytrackStack;
  let template: Template;
  let functions: Record<string, Resource>;
  let httpId: string;
  let syncId: string;

  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', cloudflareApiUrl: 'https://cf.example.test/client/v4' } });
    stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
    template = Template.fromStack(stack);
    functions = resourcesOf(template, 'AWS::Lambda::Function');
    httpId = logicalIdOf(stack.api.functions.get('crawlers') as NodeFunction);
    syncId = logicalIdOf(stack.schedules.crawlerSync);
  });

  const kmsStatements = (fnId: string) => (statementsOfFunction(template, fnId) as ConditionedStatement[]).filter((s) => JSON.stringify(s.Action).includes('kms:'));

  it('gives the route group and the worker the configured Cloudflare base URL', () => {
    for (const id of [httpId, syncId]) expect(functions[id]?.Properties.Environment.Variables.CLOUDFLARE_API_URL, id).toBe('https://cf.example.test/client/v4');
  });

  it('lets the route group seal and open, and the worker only open, tokens under the crawler context alone', () => {
    const context = { 'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['purpose', 'site', 'registration'] } };
    const http = kmsStatements(httpId);
    expect(http.map((s) => s.Action).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    const sync = kmsStatements(syncId);
    expect(sync.map((s) => s.Action)).toEqual(['kms:Decrypt']);
    for (const s of [...http, ...sync]) expect(s.Condition).toMatchObject(context);
  });

  it('runs the sync every hour at minute 5', () => {
    const rule = Object.values(resourcesOf(template, 'AWS::Events::Rule')).find((r) => (r.Properties.Targets as { Arn: unknown }[]).some((t) => refTarget(t.Arn) === syncId));
    expect(rule?.Properties.ScheduleExpression).toBe('cron(5 * * * ? *)');
  });
});
