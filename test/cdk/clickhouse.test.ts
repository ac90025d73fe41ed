/**
 * ClickHouse, the default (`-c clickhouseUrl=… -c clickhouseSecretArn=…
 * -c clickhouseReaderSecretArn=…`): no Timestream resource; the functions
 * that read or write events get the ClickHouse URL and their secret's ARN
 * (never a password): the writer's for the event writer and the import
 * worker, the reader's for the public reports function, each allowed to read
 * its own secret alone (and decrypt it with a customer-managed key, through
 * Secrets Manager, when one is named); nothing else may. Failed ClickHouse
 * requests raise an alarm; the writer takes few large batches. Bundling is skipped.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLICKHOUSE_FAILURE_LOG } from '#adapters/clickhouse/refreshing-executor.ts';
import { CLICKHOUSE_WRITER } from '../../lib/clickhouse.ts';
import type { NodeFunction } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import {
  DASHBOARD_FIXTURE,
  actionsOf,
  actionsOfFunction,
  logicalIdOf,
  refTarget,
  renderValue,
  resourcesOf,
  statementsOfFunction,
  type ConditionedStatement,
  type Resource,
} from './template-helpers.ts';

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

const URL = 'https://abc123.eu-west-1.aws.clickhouse.cloud:8443';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-AbCdEf';
const READER_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-reports-GhIjKl';
const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const CONTEXT = { clickhouseUrl: URL, clickhouseSecretArn: ARN, clickhouseReaderSecretArn: READER_ARN };

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
    goals: logicalIdOf(stack.api.functions.get('goals') as NodeFunction),
    importWorker: logicalIdOf(stack.imports.worker),
    alertChecks: logicalIdOf(stack.schedules.alertChecks),
    digests: logicalIdOf(stack.api.functions.get('digests') as NodeFunction),
    digestSends: logicalIdOf(stack.schedules.digestSends),
    live: logicalIdOf(stack.api.functions.get('live') as NodeFunction),
    // Search Console (issue 41): the route group syncs in the request and the daily worker, both writing their table.
    search: logicalIdOf(stack.api.functions.get('search') as NodeFunction),
    searchSync: logicalIdOf((stack.searchSync as NonNullable<typeof stack.searchSync>).function),
    // Crawlers (issue 41): the route group syncs in the request and the hourly worker, both writing the crawler hits.
    crawlers: logicalIdOf(stack.api.functions.get('crawlers') as NodeFunction),
    crawlerSync: logicalIdOf(stack.schedules.crawlerSync),
    // The owner export (issue 42) reads rows a page at a time.
    export: logicalIdOf(stack.api.functions.get('export') as NodeFunction),
    // Erasure and the daily purge (issue 42) delete rows.
    data: logicalIdOf(stack.api.functions.get('data') as NodeFunction),
    retentionPurge: logicalIdOf((stack.retentionPurge as NonNullable<typeof stack.retentionPurge>).function),
    // The daily rollup warm-up (issue 43) builds rollups as the reports function does: with the reader's access.
    rollupWarm: logicalIdOf((stack.rollupWarm as NonNullable<typeof stack.rollupWarm>).function),
  });

  it('creates no Timestream resource', () => {
    const types = Object.values(template.toJSON().Resources as Record<string, Resource>).map((r) => r.Type);
    expect(types.filter((t) => t.startsWith('AWS::Timestream::'))).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/TIMESTREAM_/);
  });

  it('lets ingest queue API requests: ClickHouse keeps them (no API_REQUESTS=off anywhere)', () => {
    expect(JSON.stringify(template.toJSON())).not.toMatch(/API_REQUESTS/);
    expect(stack.api.functions.has('ingest')).toBe(true);
  });

  /** The secret each function may read. */
  const secretsOf = (t: Template, id: string) =>
    statementsOfFunction(t, id)
      .filter((s) => JSON.stringify(s.Action).includes('secretsmanager:'))
      .map((s) => s.Resource);

  it('gives the writer and the import worker the writer’s secret ARN, the public reports function the reader’s, and no password anywhere', () => {
    const all = resourcesOf(template, 'AWS::Lambda::Function');
    const { writer, reports, importWorker } = eventFunctions();
    for (const [id, arn] of [[writer, ARN], [importWorker, ARN], [reports, READER_ARN]] as const) {
      expect(all[id]?.Properties.Environment.Variables, id).toMatchObject({ CLICKHOUSE_URL: URL, CLICKHOUSE_SECRET_ARN: arn, CLICKHOUSE_DATABASE: 'tinytrack' });
    }
    expect(JSON.stringify(template.toJSON())).not.toMatch(/CLICKHOUSE_(PASSWORD|USER)/);
  });

  it('lets exactly those functions read their own secret, the reports function never the writer’s, and nothing more of Secrets Manager', () => {
    const { writer, reports, goals, importWorker, alertChecks, digests, digestSends, live, search, searchSync, crawlers, crawlerSync, export: exporter, data, retentionPurge, rollupWarm } = eventFunctions();
    // The alert checks, the goals, digests, live and export functions and the digest sends only read: the reader's secret, as the reports function.
    const own = new Map<string, string>([
      [writer, ARN],
      [importWorker, ARN],
      [search, ARN],
      [searchSync, ARN],
      [crawlers, ARN],
      [crawlerSync, ARN],
      [data, ARN],
      [retentionPurge, ARN],
      ...[reports, goals, alertChecks, digests, digestSends, live, exporter, rollupWarm].map((id) => [id, READER_ARN] as [string, string]),
    ]);
    for (const id of Object.keys(resourcesOf(template, 'AWS::Lambda::Function'))) {
      const actions = actionsOfFunction(template, id, 'secretsmanager:');
      if (!own.has(id)) expect(actions, id).toEqual([]);
      else {
        expect(actions.sort(), id).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
        expect(secretsOf(template, id), id).toEqual([own.get(id)]);
      }
    }
    expect(actionsOfFunction(template, reports, 'kms:')).toEqual([]);
  });

  it('lets each of them decrypt its secret with a customer-managed key, through Secrets Manager and for that secret only', () => {
    const { stack: keyed, template: t } = synth({ ...CONTEXT, clickhouseSecretKmsKeyArn: KEY_ARN });
    const ids = { writer: logicalIdOf(keyed.writer.function), reports: logicalIdOf(keyed.api.functions.get('reports') as NodeFunction), importWorker: logicalIdOf(keyed.imports.worker) };
    for (const [id, arn] of [[ids.writer, ARN], [ids.importWorker, ARN], [ids.reports, READER_ARN]] as const) {
      const decrypts = (statementsOfFunction(t, id) as ConditionedStatement[]).filter((s) => actionsOf(s).includes('kms:Decrypt') && s.Resource === KEY_ARN);
      expect(decrypts.map((s) => [actionsOf(s), renderValue(s.Condition?.StringEquals?.['kms:ViaService']), s.Condition?.StringEquals?.['kms:EncryptionContext:SecretARN']]), id).toEqual([
        [['kms:Decrypt'], 'secretsmanager.${AWS::Region}.amazonaws.com', arn],
      ]);
    }
    expect(() => synth({ ...CONTEXT, clickhouseSecretKmsKeyArn: 'alias/tinytrack' })).toThrow(/clickhouseSecretKmsKeyArn must be a KMS key ARN/);
  });

  it('counts failed ClickHouse requests from the logs of every function that talks to it, into one alarm', () => {
    const { writer, reports, goals, importWorker, alertChecks, digests, digestSends, live, search, searchSync, crawlers, crawlerSync, export: exporter, data, retentionPurge, rollupWarm } = eventFunctions();
    const fns = resourcesOf(template, 'AWS::Lambda::Function');
    const filters = Object.values(resourcesOf(template, 'AWS::Logs::MetricFilter')).filter((f) => f.Properties.MetricTransformations[0].MetricName === 'ClickHouseErrors');
    expect(filters.map((f) => f.Properties.LogGroupName).sort(byJson)).toEqual([writer, reports, goals, importWorker, alertChecks, digests, digestSends, live, search, searchSync, crawlers, crawlerSync, exporter, data, retentionPurge, rollupWarm].map((id) => fns[id]!.Properties.LoggingConfig.LogGroup).sort(byJson));
    for (const f of filters) {
      expect(f.Properties.FilterPattern).toBe(`"${CLICKHOUSE_FAILURE_LOG}"`);
      expect(f.Properties.MetricTransformations[0]).toMatchObject({ MetricNamespace: 'tinytrack/Tinytrack', MetricValue: '1' });
    }
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter((a) => a.Properties.MetricName === 'ClickHouseErrors');
    expect(alarms.map((a) => a.Properties)).toEqual([
      expect.objectContaining({ Namespace: 'tinytrack/Tinytrack', Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2, AlarmActions: [{ Ref: logicalIdOf(stack.alarms.topic) }] }),
    ]);
  });

  it('feeds the writer few large batches', () => {
    const mapping = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).find((m) => refTarget(m.Properties.FunctionName) === logicalIdOf(stack.writer.function));
    expect([mapping?.Properties.BatchSize, mapping?.Properties.MaximumBatchingWindowInSeconds]).toEqual([CLICKHOUSE_WRITER.batchSize, CLICKHOUSE_WRITER.batchingWindow.toSeconds()]);
  });

  it('refuses a ClickHouse store without its URL or secret (saying what to pass), over plain http, or an unknown engine', () => {
    expect(() => synth({ eventStore: 'clickhouse' })).toThrow(/pass -c clickhouseUrl=https:\/\/… -c clickhouseSecretArn=arn:….*or -c eventStore=timestream/);
    expect(() => synth({ eventStore: 'clickhouse', clickhouseUrl: URL })).toThrow(/clickhouseSecretArn/);
    expect(() => synth({ ...CONTEXT, clickhouseUrl: 'http://clickhouse.internal:8123' })).toThrow(/https/);
    expect(() => synth({ eventStore: 'athena' })).toThrow(/s3, clickhouse or timestream/);
  });

  it('refuses a ClickHouse store without the reports reader’s own secret, or with the writer’s as the reader’s', () => {
    expect(() => synth({ clickhouseUrl: URL, clickhouseSecretArn: ARN })).toThrow(/pass -c clickhouseReaderSecretArn=arn:…/);
    expect(() => synth({ ...CONTEXT, clickhouseReaderSecretArn: ARN })).toThrow(/must name another secret/);
  });
});

describe('the stack on Timestream (-c eventStore=timestream)', () => {
  it('creates the Timestream database and table and no Secrets Manager grant', () => {
    const { template } = synth({ eventStore: 'timestream' });
    expect(Object.keys(resourcesOf(template, 'AWS::Timestream::Table'))).toHaveLength(1);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/secretsmanager:GetSecretValue|CLICKHOUSE_/);
  });
});
