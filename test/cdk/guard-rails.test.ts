/**
 * Guard rails of the stack: concurrency caps and API throttling with their
 * context settings and defaults, one SNS topic behind every alarm (e-mail
 * only when asked), and a salt rotation that cannot fail unnoticed. Bundling
 * is skipped; one template per context.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DropLog } from '#platform/collector-drops.ts';
import type { NodeFunction } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, logicalIdOf, refTarget, resourcesOf, type Resource } from './template-helpers.ts';

const synth = (context: Record<string, unknown> = {}) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  return { stack, template: Template.fromStack(stack) };
};

const collectorId = (stack: TinytrackStack) => logicalIdOf(stack.api.functions.get('collector') as NodeFunction);

/** A function's one event source mapping. */
const mappingOf = (template: Template, fn: NodeFunction) => {
  const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).filter((m) => refTarget(m.Properties.FunctionName) === logicalIdOf(fn));
  expect(mappings).toHaveLength(1);
  return (mappings[0] as Resource).Properties;
};
const writerMapping = (stack: TinytrackStack, template: Template) => mappingOf(template, stack.writer.function);
const importMapping = (stack: TinytrackStack, template: Template) => mappingOf(template, stack.imports.worker);

const stageSettings = (template: Template) => {
  const stages = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Stage'));
  expect(stages).toHaveLength(1);
  const stage = (stages[0] as Resource).Properties;
  expect(stage.StageName).toBe('$default');
  expect(stage.AutoDeploy).toBe(true);
  return stage.DefaultRouteSettings;
};

describe('TinytrackStack guard rails by default', () => {
  let stack: TinytrackStack;
  let template: Template;
  let alarms: Record<string, Resource>;
  const topicId = () => logicalIdOf(stack.alarms.topic);

  beforeAll(() => {
    ({ stack, template } = synth());
    alarms = resourcesOf(template, 'AWS::CloudWatch::Alarm');
  });

  /** The alarms on a metric of a resource (its dimension value's logical id). */
  const alarmsOn = (metricName: string, resourceId: string) =>
    Object.values(alarms).filter((a) => a.Properties.MetricName === metricName && refTarget(a.Properties.Dimensions?.[0]?.Value) === resourceId);

  describe('concurrency', () => {
    it('reserves no concurrency for any function, so it deploys on an account whose quota is 10', () => {
      for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
        expect(fn.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
      }
    });

    it('caps the event writer at 2 invocations at once (the event source minimum)', () => {
      expect(writerMapping(stack, template).ScalingConfig).toEqual({ MaximumConcurrency: 2 });
    });

    it('caps the import worker at 2 chunks at once, so with the writer a quota of 10 keeps 6 for the collector and the API', () => {
      expect(importMapping(stack, template).ScalingConfig).toEqual({ MaximumConcurrency: 2 });
    });

    it('alarms when the collector is throttled, as its public URL has no other cap', () => {
      const throttles = alarmsOn('Throttles', collectorId(stack));
      expect(throttles).toHaveLength(1);
      expect(throttles[0]?.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', Statistic: 'Sum' });
    });

    it('alarms when collected rows wait over an hour on the event queue (the writer cap’s other side)', () => {
      const backlog = alarmsOn('ApproximateAgeOfOldestMessage', logicalIdOf(stack.events.queue));
      expect(backlog).toHaveLength(1);
      expect(backlog[0]?.Properties).toMatchObject({ Threshold: 3600, ComparisonOperator: 'GreaterThanThreshold', Statistic: 'Maximum' });
    });
  });

  it('throttles every route of the HTTP API at 100 requests per second with bursts of 200', () => {
    expect(stageSettings(template)).toEqual({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
  });

  describe('alarms', () => {
    it('has one SNS topic, refusing plain HTTP, and outputs its ARN', () => {
      template.resourceCountIs('AWS::SNS::Topic', 1);
      const policies = Object.values(resourcesOf(template, 'AWS::SNS::TopicPolicy')).filter((p) => (p.Properties.Topics as unknown[]).map(refTarget).includes(topicId()));
      expect(JSON.stringify(policies.map((p) => p.Properties.PolicyDocument))).toContain('"aws:SecureTransport":"false"');
      expect((template.toJSON().Outputs as Record<string, { Value: unknown }>).AlarmTopicArn?.Value).toEqual({ Ref: topicId() });
    });

    it('notifies the topic from every alarm in the stack', () => {
      // Two dead-letter queues, the rotation's dead-letter queue and errors, writer errors and backlog, collector throttles,
      // the collector URL's 5xx and refused beacons, the API's 5xx, import worker errors, the alert checks' and the digest sends'
      // dead-letter queues and errors, the crawler sync's dead-letter queue and errors.
      expect(Object.keys(alarms)).toHaveLength(17);
      for (const [id, alarm] of Object.entries(alarms)) expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: topicId() }]);
    });

    it('subscribes no e-mail address without context', () => {
      template.resourceCountIs('AWS::SNS::Subscription', 0);
    });

    it('alarms on the first 5xx the collector’s public URL answers', () => {
      const errors = Object.values(alarms).filter((a) => a.Properties.MetricName === 'Url5xxCount');
      expect(errors).toHaveLength(1);
      expect(errors[0]?.Properties).toMatchObject({ Namespace: 'AWS/Lambda', Threshold: 1, EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', Statistic: 'Sum' });
      expect(errors[0]?.Properties.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: collectorId(stack) } }]);
    });

    it('counts beacons answered 503 (queue_full, enqueue_failed) from the collector’s log, and alarms on the first', () => {
      const filters = Object.values(resourcesOf(template, 'AWS::Logs::MetricFilter')).filter((f) => f.Properties.MetricTransformations[0].MetricName === 'RefusedBeacons');
      expect(filters).toHaveLength(1);
      const filter = filters[0]!.Properties;
      const collectorLogs = resourcesOf(template, 'AWS::Lambda::Function')[collectorId(stack)]!.Properties.LoggingConfig.LogGroup;
      expect(filter.LogGroupName).toEqual(collectorLogs);
      expect(filter.MetricTransformations[0]).toMatchObject({ MetricNamespace: 'tinytrack/Tinytrack', MetricValue: '1' });
      // The pattern's terms are what the collector writes when a beacon is refused (its drop counts, a failed send).
      const terms = [...(filter.FilterPattern as string).matchAll(/\?"([^"]+)"/g)].map((m) => m[1]);
      const written: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((line: string) => void written.push(line));
      const drops = new DropLog(null);
      for (const reason of ['queue_full', 'enqueue_failed'] as const) {
        drops.dropped(reason, 'a.example');
        drops.flush();
      }
      vi.restoreAllMocks();
      expect(written.map((line) => terms.filter((t) => line.includes(t!)).length > 0)).toEqual([true, true]);
      const refused = Object.values(alarms).filter((a) => a.Properties.MetricName === 'RefusedBeacons');
      expect(refused.map((a) => a.Properties)).toEqual([expect.objectContaining({ Namespace: 'tinytrack/Tinytrack', Threshold: 1, EvaluationPeriods: 1, Statistic: 'Sum' })]);
    });

    it('alarms on the HTTP API’s 5xx answers', () => {
      const errors = Object.values(alarms).filter((a) => a.Properties.MetricName === '5xx');
      expect(errors).toHaveLength(1);
      expect(errors[0]?.Properties).toMatchObject({ Namespace: 'AWS/ApiGateway', Threshold: 1, Statistic: 'Sum' });
      expect(errors[0]?.Properties.Dimensions).toEqual([{ Name: 'ApiId', Value: { Ref: logicalIdOf(stack.api.httpApi) } }]);
    });

    it('alarms when the import worker fails', () => {
      const errors = alarmsOn('Errors', logicalIdOf(stack.imports.worker));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.Properties).toMatchObject({ Threshold: 1, Period: 300, EvaluationPeriods: 1, Statistic: 'Sum' });
    });

    it('alarms when the event writer fails in two of three 5-minute periods', () => {
      const errors = alarmsOn('Errors', logicalIdOf(stack.writer.function));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.Properties).toMatchObject({ Threshold: 1, Period: 300, EvaluationPeriods: 3, DatapointsToAlarm: 2, Statistic: 'Sum' });
    });
  });

  describe('salt rotation', () => {
    const rotationDlqId = () => logicalIdOf(stack.schedules.rotateSaltsDeadLetterQueue);

    it('gives the schedule target 4 retries within 2 hours and an encrypted dead-letter queue kept 14 days', () => {
      const target = (Object.values(resourcesOf(template, 'AWS::Events::Rule'))[0] as Resource).Properties.Targets[0];
      expect(refTarget(target.Arn)).toBe(logicalIdOf(stack.schedules.rotateSalts));
      expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 7200 });
      expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [rotationDlqId(), 'Arn'] } });
      const queue = resourcesOf(template, 'AWS::SQS::Queue')[rotationDlqId()] as Resource;
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      expect(queue.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    });

    it('lets EventBridge send to the rotation dead-letter queue for this rule only', () => {
      const policies = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy')).filter((p) => (p.Properties.Queues as unknown[]).map(refTarget).includes(rotationDlqId()));
      const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement as { Effect: string; Principal?: { Service?: string }; Condition?: unknown }[]);
      const fromEvents = statements.filter((s) => s.Effect === 'Allow' && s.Principal?.Service === 'events.amazonaws.com');
      expect(fromEvents).toHaveLength(1);
      expect(JSON.stringify(fromEvents[0]?.Condition)).toContain(logicalIdOf(stack.schedules.rotateSaltsRule));
    });

    it('alarms on a message in the rotation dead-letter queue and on any rotation error', () => {
      expect(alarmsOn('ApproximateNumberOfMessagesVisible', rotationDlqId())).toHaveLength(1);
      const errors = alarmsOn('Errors', logicalIdOf(stack.schedules.rotateSalts));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', Statistic: 'Sum', TreatMissingData: 'notBreaching' });
    });
  });
});

describe('TinytrackStack guard rails from context', () => {
  let stack: TinytrackStack;
  let template: Template;

  beforeAll(() => {
    // As `-c key=value` passes them: strings.
    ({ stack, template } = synth({
      collectorReservedConcurrency: '25',
      writerMaxConcurrency: '10',
      importWorkerMaxConcurrency: '4',
      apiThrottleRate: '40',
      apiThrottleBurst: '80',
      alarmEmail: 'ops@example.com',
    }));
  });

  it('reserves the given concurrency for the collector alone', () => {
    for (const [id, fn] of Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))) {
      expect(fn.Properties.ReservedConcurrentExecutions, id).toBe(id === collectorId(stack) ? 25 : undefined);
    }
  });

  it('caps the event writer and the import worker at the given concurrency', () => {
    expect(writerMapping(stack, template).ScalingConfig).toEqual({ MaximumConcurrency: 10 });
    expect(importMapping(stack, template).ScalingConfig).toEqual({ MaximumConcurrency: 4 });
  });

  it('throttles the HTTP API at the given rate and burst', () => {
    expect(stageSettings(template)).toEqual({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
  });

  it('subscribes the given e-mail address to the alarm topic', () => {
    const subscriptions = Object.values(resourcesOf(template, 'AWS::SNS::Subscription'));
    expect(subscriptions.map((s) => s.Properties)).toEqual([{ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: logicalIdOf(stack.alarms.topic) } }]);
  });
});

describe('TinytrackStack guard rail context checks', () => {
  it.each([
    [{ writerMaxConcurrency: '1' }, /writerMaxConcurrency must be a whole number from 2 to 1000/],
    [{ writerMaxConcurrency: '1001' }, /writerMaxConcurrency/],
    [{ importWorkerMaxConcurrency: '1' }, /importWorkerMaxConcurrency must be a whole number from 2 to 1000/],
    [{ collectorReservedConcurrency: '0' }, /collectorReservedConcurrency must be a whole number/],
    [{ collectorReservedConcurrency: 'ten' }, /collectorReservedConcurrency/],
    [{ apiThrottleRate: '2.5' }, /apiThrottleRate/],
    [{ alarmEmail: 'not-an-address' }, /alarmEmail must be an e-mail address/],
  ])('refuses %j', (context, error) => {
    expect(() => synth(context)).toThrow(error);
  });

  it('takes numbers as cdk.json writes them', () => {
    const { stack, template } = synth({ writerMaxConcurrency: 3 });
    expect(writerMapping(stack, template).ScalingConfig).toEqual({ MaximumConcurrency: 3 });
  });
});
