/**
 * ClickHouse, the default (`-c clickhouseUrl=… -c clickhouseSecretArn=…`): no Timestream resource; the functions that
 * read or write events get the ClickHouse URL and the secret's ARN (never a
 * password) and may read that secret, nothing else may; the writer takes few
 * large batches. Bundling is skipped.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLICKHOUSE_WRITER } from '../../lib/clickhouse.ts';
import type { NodeFunction } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, actionsOfFunction, logicalIdOf, refTarget, resourcesOf, statementsOfFunction, type Resource } from './template-helpers.ts';

const URL = 'https://abc123.eu-west-1.aws.clickhouse.cloud:8443';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-AbCdEf';
const CONTEXT = { clickhouseUrl: URL, clickhouseSecretArn: ARN };

const synth = (context: Record<string, unknown>) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  return { stack, template: Template.fromStack(stack) };
};

describe('the stack on ClickHouse', () => {
  let stack: TinytrackStack;
  let template: Template;
  beforeAll(() => ({ stack, template } = synth(CONTEXT)));

  const eventFunctions = () => ({
    writer: logicalIdOf(stack.writer.function),
    reports: logicalIdOf(stack.api.functions.get('reports') as NodeFunction),
    importWorker: logicalIdOf(stack.imports.worker),
  });

  it('creates no Timestream resource', () => {
    const types = Object.values(template.toJSON().Resources as Record<string, Resource>).map((r) => r.Type);
    expect(types.filter((t) => t.startsWith('AWS::Timestream::'))).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/TIMESTREAM_/);
  });

  it('gives the writer, the reports and the import worker the URL and the secret ARN, and no password anywhere', () => {
    const all = resourcesOf(template, 'AWS::Lambda::Function');
    for (const id of Object.values(eventFunctions())) {
      expect(all[id]?.Properties.Environment.Variables).toMatchObject({ CLICKHOUSE_URL: URL, CLICKHOUSE_SECRET_ARN: ARN, CLICKHOUSE_DATABASE: 'tinytrack' });
    }
    expect(JSON.stringify(template.toJSON())).not.toMatch(/CLICKHOUSE_(PASSWORD|USER)/);
  });

  it('lets exactly those functions read the secret, and nothing more of Secrets Manager', () => {
    const readers = new Set(Object.values(eventFunctions()));
    for (const id of Object.keys(resourcesOf(template, 'AWS::Lambda::Function'))) {
      const actions = actionsOfFunction(template, id, 'secretsmanager:');
      if (!readers.has(id)) expect(actions, id).toEqual([]);
      else {
        expect(actions.sort(), id).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
        const resources = statementsOfFunction(template, id)
          .filter((s) => JSON.stringify(s.Action).includes('secretsmanager:'))
          .map((s) => s.Resource);
        expect(resources, id).toEqual([ARN]);
      }
    }
  });

  it('feeds the writer few large batches', () => {
    const mapping = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).find((m) => refTarget(m.Properties.FunctionName) === logicalIdOf(stack.writer.function));
    expect([mapping?.Properties.BatchSize, mapping?.Properties.MaximumBatchingWindowInSeconds]).toEqual([CLICKHOUSE_WRITER.batchSize, CLICKHOUSE_WRITER.batchingWindow.toSeconds()]);
  });

  it('refuses a ClickHouse store without its URL or secret (saying what to pass), over plain http, or an unknown engine', () => {
    expect(() => synth({})).toThrow(/pass -c clickhouseUrl=https:\/\/… -c clickhouseSecretArn=arn:….*or -c eventStore=timestream/);
    expect(() => synth({ eventStore: 'clickhouse', clickhouseUrl: URL })).toThrow(/clickhouseSecretArn/);
    expect(() => synth({ ...CONTEXT, clickhouseUrl: 'http://clickhouse.internal:8123' })).toThrow(/https/);
    expect(() => synth({ eventStore: 'athena' })).toThrow(/clickhouse or timestream/);
  });
});

describe('the stack on Timestream (-c eventStore=timestream)', () => {
  it('creates the Timestream database and table and no Secrets Manager grant', () => {
    const { template } = synth({ eventStore: 'timestream' });
    expect(Object.keys(resourcesOf(template, 'AWS::Timestream::Table'))).toHaveLength(1);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/secretsmanager:GetSecretValue|CLICKHOUSE_/);
  });
});
