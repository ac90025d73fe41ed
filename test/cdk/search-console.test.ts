/**
 * Search Console on AWS (issue 41): the search group's function and the daily sync worker may
 * use the KMS key only under a Search Console token's context, get Google's settings from the
 * deploy's context, and the sync runs daily at 01:00 UTC; on Timestream there is no sync.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import type { NodeFunction } from '../../lib/node-function.ts';
import { DASHBOARD_FIXTURE, logicalIdOf, refTarget, resourcesOf, statementsOfFunction, type ConditionedStatement, type Resource } from './template-helpers.ts';

const CLICKHOUSE = {
  clickhouseUrl: 'https://abc123.eu-west-1.aws.clickhouse.cloud:8443',
  clickhouseSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-AbCdEf',
  clickhouseReaderSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-reports-GhIjKl',
};
const GOOGLE_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-google-MnOpQr';
const GOOGLE = { googleClientId: 'id.apps.googleusercontent.com', googleClientSecretArn: GOOGLE_SECRET_ARN, googleRedirectUri: 'https://dash.example.com/account' };

const synth = (context: Record<string, unknown>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  return { stack, template: Template.fromStack(stack) };
};
const secretReads = (t: Template, id: string) =>
  (statementsOfFunction(t, id) as ConditionedStatement[]).filter((s) => JSON.stringify(s.Action).includes('secretsmanager:')).map((s) => s.Resource);
const kmsStatements = (t: Template, id: string) => (statementsOfFunction(t, id) as ConditionedStatement[]).filter((s) => JSON.stringify(s.Action).includes('kms:'));
const SEARCH_CONTEXT = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['site', 'purpose'] },
  StringEquals: { 'kms:EncryptionContext:purpose': 'search-console' },
  Null: { 'kms:EncryptionContext:site': 'false' },
};

describe('Search Console on AWS', () => {
  it('seals and opens tokens in the search group only under their own KMS context, with Google’s settings', () => {
    const { stack, template } = synth({ ...CLICKHOUSE, ...GOOGLE });
    const id = logicalIdOf(stack.api.functions.get('search') as NodeFunction);
    expect(kmsStatements(template, id).map((s) => [s.Action, s.Condition])).toEqual([[['kms:GenerateDataKey', 'kms:Decrypt'], SEARCH_CONTEXT]]);
    const env = resourcesOf(template, 'AWS::Lambda::Function')[id]?.Properties.Environment.Variables;
    expect(env).toMatchObject({ GOOGLE_CLIENT_ID: GOOGLE.googleClientId, GOOGLE_CLIENT_SECRET_ARN: GOOGLE_SECRET_ARN, GOOGLE_REDIRECT_URI: GOOGLE.googleRedirectUri });
    expect(env.IMPORT_KMS_KEY_ID).toBeDefined();
    expect(secretReads(template, id)).toContainEqual(GOOGLE_SECRET_ARN);
  }, 120_000);

  it('never puts Google’s client secret in the template: the secret itself as context is refused', () => {
    expect(() => synth({ ...CLICKHOUSE, ...GOOGLE, googleClientSecret: 'hunter2' })).toThrow(/googleClientSecretArn/);
    const { stack, template } = synth({ ...CLICKHOUSE, ...GOOGLE });
    expect(JSON.stringify(template.toJSON())).not.toContain('GOOGLE_CLIENT_SECRET"');
    expect(secretReads(template, logicalIdOf(stack.searchSync!.function))).toContainEqual(GOOGLE_SECRET_ARN);
  }, 120_000);

  it('syncs daily at 01:00 UTC with a worker that may only open tokens', () => {
    const { stack, template } = synth({ ...CLICKHOUSE, ...GOOGLE });
    const sync = stack.searchSync as NonNullable<typeof stack.searchSync>;
    const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule') as Record<string, Resource>);
    const rule = rules.find((r) => refTarget(r.Properties.Targets[0].Arn) === logicalIdOf(sync.function)) as Resource;
    expect(rule.Properties.ScheduleExpression).toBe('cron(0 1 * * ? *)');
    expect(kmsStatements(template, logicalIdOf(sync.function)).map((s) => [s.Action, s.Condition])).toEqual([['kms:Decrypt', SEARCH_CONTEXT]]);
  }, 120_000);

  it('has no sync on Timestream', () => {
    expect(synth({ eventStore: 'timestream' }).stack.searchSync).toBeNull();
  }, 120_000);
});
