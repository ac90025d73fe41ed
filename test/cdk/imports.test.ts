/**
 * Template assertions for historical imports on AWS: the chunk
 * queue with its dead-letter queue and alarm, the import worker and its event
 * source mapping, the KMS key of sealed credentials, and who may seal, open
 * and queue. The bundles are built and size-checked by stack.test.ts; these
 * tests skip bundling.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteGroup } from '#http/routes.ts';
import { GROUP_ACCESS } from '../../lib/api.ts';
import { IMPORT_WORKER_ENTRY, IMPORT_WORKER_TIMEOUT } from '../../lib/imports.ts';
import { MAX_RECEIVE_COUNT } from '../../lib/queues.ts';
import { PROJECT_ROOT, type NodeFunction } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, actionsOf, actionsOfFunction, logicalIdOf, refTarget, resourcesOf, statementsOfFunction, type ConditionedStatement, type Resource } from './template-helpers.ts';
import type { Timestream } from '../../lib/timestream.ts';

describe('TinytrackStack imports', () => {
  let stack: TinytrackStack;
  let template: Template;
  let functions: Record<string, Resource>;
  let queueId: string;
  let deadLetterId: string;
  let keyId: string;
  let workerId: string;
  /** The HTTP function of a route group. */
  let groupFn: (group: RouteGroup) => string;

  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream' } });
    stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
    template = Template.fromStack(stack);
    functions = resourcesOf(template, 'AWS::Lambda::Function');
    queueId = logicalIdOf(stack.imports.queue.queue);
    deadLetterId = logicalIdOf(stack.imports.queue.deadLetterQueue);
    keyId = logicalIdOf(stack.imports.key);
    workerId = logicalIdOf(stack.imports.worker);
    groupFn = (group) => logicalIdOf(stack.api.functions.get(group) as NodeFunction);
  });

  const worker = () => functions[workerId] as Resource;
  const queues = () => resourcesOf(template, 'AWS::SQS::Queue');
  const kmsActions = (fnId: string) => actionsOfFunction(template, fnId, 'kms:');
  const sqsActions = (fnId: string) => actionsOfFunction(template, fnId, 'sqs:');
  const keyArn = () => ({ 'Fn::GetAtt': [keyId, 'Arn'] });
  const queueArn = () => ({ 'Fn::GetAtt': [queueId, 'Arn'] });

  describe('queue', () => {
    it('moves a chunk to the import dead-letter queue after 5 receives and keeps both up to 14 days', () => {
      const q = queues()[queueId] as Resource;
      expect(q.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: MAX_RECEIVE_COUNT });
      expect(MAX_RECEIVE_COUNT).toBe(5);
      expect(q.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
      expect(queues()[deadLetterId]?.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    });

    it('keeps a chunk invisible for at least six worker timeouts, within SQS’s 12 hours', () => {
      const visibility = queues()[queueId]?.Properties.VisibilityTimeout as number;
      expect(worker().Properties.Timeout).toBe(IMPORT_WORKER_TIMEOUT.toSeconds());
      expect(visibility).toBeGreaterThanOrEqual(6 * worker().Properties.Timeout);
      expect(visibility).toBeLessThanOrEqual(12 * 3600);
    });

    it('encrypts both import queues and refuses plain HTTP', () => {
      for (const id of [queueId, deadLetterId]) expect(queues()[id]?.Properties.SqsManagedSseEnabled, id).toBe(true);
      const guarded = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy'))
        .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes('"aws:SecureTransport":"false"'))
        .flatMap((p) => (p.Properties.Queues as unknown[]).map(refTarget));
      expect(guarded).toEqual(expect.arrayContaining([queueId, deadLetterId]));
    });

    it('raises an alarm when the import dead-letter queue holds a message', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterId, 'QueueName'] } }],
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it('outputs the import queue and dead-letter queue URLs', () => {
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
      expect(outputs.ImportQueueUrl?.Value).toEqual({ Ref: queueId });
      expect(outputs.ImportDeadLetterQueueUrl?.Value).toEqual({ Ref: deadLetterId });
    });
  });

  describe('worker', () => {
    it(`has the import worker's Lambda entry ${IMPORT_WORKER_ENTRY}`, () => {
      expect(existsSync(join(PROJECT_ROOT, IMPORT_WORKER_ENTRY)), IMPORT_WORKER_ENTRY).toBe(true);
    });

    it('runs the import worker on Node 22 and ARM for 15 minutes with one vCPU of memory', () => {
      const p = worker().Properties;
      expect(p.Runtime).toBe('nodejs22.x');
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.Timeout).toBe(900);
      expect(p.MemorySize).toBe(1769);
    });

    it('passes the worker the table, the key and the Timestream names, and no issuer', () => {
      const env = worker().Properties.Environment.Variables;
      expect(refTarget(env.TABLE_NAME)).toBe(logicalIdOf(stack.storage.table));
      expect(env.IMPORT_KMS_KEY_ID).toEqual(keyArn());
      const store = stack.eventStore as Timestream;
      expect(refTarget(env.TIMESTREAM_DATABASE)).toBe(logicalIdOf(store.database));
      expect(env.TIMESTREAM_TABLE).toEqual({ 'Fn::GetAtt': [logicalIdOf(store.table), 'Name'] });
      expect(env.AUTH_ISSUER).toBeUndefined();
      expect(env.IMPORT_QUEUE_URL).toBeUndefined();
    });

    it('feeds the worker one chunk at a time from the import queue, reporting item failures, at most 2 at once', () => {
      const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => refTarget(m.Properties.FunctionName) === workerId);
      expect(mappings).toHaveLength(1);
      const m = (mappings[0] as Resource).Properties;
      expect(refTarget(m.EventSourceArn)).toBe(queueId);
      expect(m.BatchSize).toBe(1);
      expect(m.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      expect(m.ScalingConfig).toEqual({ MaximumConcurrency: 2 });
    });
  });

  describe('credential key', () => {
    it('creates one KMS key with yearly rotation, kept when the stack goes, under a stack-named alias', () => {
      template.resourceCountIs('AWS::KMS::Key', 1);
      template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain', Properties: { EnableKeyRotation: true } });
      template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/Tinytrack/imports', TargetKeyId: keyArn() });
    });
  });

  describe('imports route group', () => {
    it('passes the imports function IMPORT_QUEUE_URL and IMPORT_KMS_KEY_ID, the crawlers function the key alone, and no other HTTP function but the search group the key (test/cdk/search-console.test.ts)', () => {
      const env = functions[groupFn('imports')]?.Properties.Environment.Variables;
      expect(env.IMPORT_QUEUE_URL).toEqual({ Ref: queueId });
      expect(env.IMPORT_KMS_KEY_ID).toEqual(keyArn());
      // The crawlers group seals Cloudflare tokens with the same key, under their own context (test/cdk/crawlers.test.ts).
      const crawlers = functions[groupFn('crawlers')]?.Properties.Environment.Variables;
      expect(['IMPORT_QUEUE_URL' in crawlers, crawlers.IMPORT_KMS_KEY_ID]).toEqual([false, keyArn()]);
      for (const group of stack.api.functions.keys()) {
        if (group === 'imports' || group === 'crawlers') continue;
        const other = functions[groupFn(group)]?.Properties.Environment.Variables;
        expect('IMPORT_QUEUE_URL' in other || ('IMPORT_KMS_KEY_ID' in other && group !== 'search'), group).toBe(false);
      }
    });

    it('is listed in GROUP_ACCESS as sealing and queueing', () => {
      expect(GROUP_ACCESS.imports).toMatchObject({ importQueue: true, importKey: 'seal', eventStore: 'none' });
    });
  });

  describe('permissions', () => {
    it('lets the imports function kms:GenerateDataKey on the import key but not kms:Decrypt', () => {
      const statements = statementsOfFunction(template, groupFn('imports')).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
      expect(statements.flatMap(actionsOf)).toEqual(['kms:GenerateDataKey']);
      expect(statements[0]?.Resource).toEqual(keyArn());
    });

    it('lets the key seal and open only under a credential’s encryption context: its site and job, and nothing else', () => {
      for (const [fnId, action] of [
        [groupFn('imports'), 'kms:GenerateDataKey'],
        [workerId, 'kms:Decrypt'],
      ] as const) {
        const statements = statementsOfFunction(template, fnId).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:'))) as ConditionedStatement[];
        expect(statements.map((s) => [actionsOf(s), s.Condition]), fnId).toEqual([
          [
            [action],
            {
              'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['site', 'job_id'] },
              Null: { 'kms:EncryptionContext:site': 'false', 'kms:EncryptionContext:job_id': 'false' },
            },
          ],
        ]);
      }
    });

    it('lets the imports function send to the import queue only', () => {
      const fnId = groupFn('imports');
      expect(sqsActions(fnId)).toContain('sqs:SendMessage');
      expect(sqsActions(fnId)).not.toContain('sqs:ReceiveMessage');
      for (const s of statementsOfFunction(template, fnId).filter((st) => actionsOf(st).some((a) => a.startsWith('sqs:')))) {
        expect(s.Resource).toEqual(queueArn());
      }
    });

    it('lets the worker kms:Decrypt on the import key only, and neither seal nor send', () => {
      const statements = statementsOfFunction(template, workerId).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
      expect(statements.flatMap(actionsOf)).toEqual(['kms:Decrypt']);
      expect(statements[0]?.Resource).toEqual(keyArn());
      expect(sqsActions(workerId)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
      expect(sqsActions(workerId)).not.toContain('sqs:SendMessage');
    });

    it('lets the worker write and query the Timestream table', () => {
      expect(actionsOfFunction(template, workerId, 'timestream:').sort()).toEqual(
        ['timestream:DescribeEndpoints', 'timestream:DescribeTable', 'timestream:Select', 'timestream:WriteRecords'].sort(),
      );
    });

    it('gives KMS access to the imports function and the worker only, besides the search group and the crawler functions under their own contexts (test/cdk/search-console.test.ts, test/cdk/crawlers.test.ts)', () => {
      const crawlerFunctions = [groupFn('crawlers'), logicalIdOf(stack.schedules.crawlerSync)];
      for (const id of Object.keys(functions)) {
        if (id === workerId || id === groupFn('imports') || id === groupFn('search') || crawlerFunctions.includes(id)) continue;
        expect(kmsActions(id), id).toEqual([]);
      }
    });

    it('gives the reports function no KMS and no SQS access', () => {
      expect(kmsActions(groupFn('reports'))).toEqual([]);
      expect(sqsActions(groupFn('reports'))).toEqual([]);
    });

    it('lets nothing but the imports function send to the import queue', () => {
      for (const id of Object.keys(functions)) {
        if (id === groupFn('imports')) continue;
        const sends = statementsOfFunction(template, id).filter(
          (s) => actionsOf(s).includes('sqs:SendMessage') && JSON.stringify(s.Resource) === JSON.stringify(queueArn()),
        );
        expect(sends, id).toEqual([]);
      }
    });

    it('grants no role Action "*" and keeps the key policy to the account (IAM decides)', () => {
      for (const id of Object.keys(functions)) {
        for (const s of statementsOfFunction(template, id)) expect(actionsOf(s), id).not.toContain('*');
      }
      const key = Object.values(resourcesOf(template, 'AWS::KMS::Key'))[0] as Resource;
      for (const s of key.Properties.KeyPolicy.Statement as { Principal: { AWS: unknown } }[]) {
        expect(JSON.stringify(s.Principal.AWS)).toMatch(/:root"/);
      }
    });
  });
});
