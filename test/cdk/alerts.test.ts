/**
 * Alert checks and mail on AWS (issue 36): an every-minute EventBridge rule with retries and a
 * dead-letter queue and alarms; SES only with `-c mailFrom -c sesIdentity`, limited to that
 * identity and From address, for the functions that mail (the checks and the alerts group).
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import type { NodeFunction } from '../../lib/node-function.ts';
import { DASHBOARD_FIXTURE, logicalIdOf, refTarget, resourcesOf, statementsOfFunction, type ConditionedStatement, type Resource } from './template-helpers.ts';

const synth = (context: Record<string, unknown> = {}) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  return { stack, template: Template.fromStack(stack) };
};

const sesStatements = (t: Template, id: string) => (statementsOfFunction(t, id) as ConditionedStatement[]).filter((s) => JSON.stringify(s.Action).includes('ses:'));

describe('alert checks and mail on AWS', () => {
  it('checks every minute, retrying twice within 5 minutes, a dead-letter queue for what was not delivered', () => {
    const { stack, template } = synth();
    const rules = Object.values(template.findResources('AWS::Events::Rule') as Record<string, Resource>);
    const rule = rules.find((r) => refTarget(r.Properties.Targets[0].Arn) === logicalIdOf(stack.schedules.alertChecks)) as Resource;
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule.Properties.Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 300 });
    expect(refTarget(rule.Properties.Targets[0].DeadLetterConfig.Arn)).toBe(logicalIdOf(stack.schedules.alertChecksDeadLetterQueue));
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties.AlarmDescription as string);
    expect(alarms.filter((d) => d.includes('alert checks'))).toHaveLength(2);
  });

  it('without mail context nothing may send and no function has MAIL_FROM', () => {
    const { template } = synth();
    for (const id of Object.keys(resourcesOf(template, 'AWS::Lambda::Function'))) expect(sesStatements(template, id), id).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/MAIL_FROM/);
  });

  it('with it, the checks, the digest sends and the alerts and digests groups may send as that address of that identity only', () => {
    const { stack, template } = synth({ mailFrom: 'alerts@example.com', sesIdentity: 'example.com' });
    const senders = [
      logicalIdOf(stack.schedules.alertChecks),
      logicalIdOf(stack.schedules.digestSends),
      logicalIdOf(stack.api.functions.get('alerts') as NodeFunction),
      logicalIdOf(stack.api.functions.get('digests') as NodeFunction),
    ];
    const fns = resourcesOf(template, 'AWS::Lambda::Function');
    for (const id of Object.keys(fns)) {
      const ses = sesStatements(template, id);
      if (!senders.includes(id)) {
        expect(ses, id).toEqual([]);
        expect(fns[id]?.Properties.Environment.Variables.MAIL_FROM, id).toBeUndefined();
        continue;
      }
      expect(fns[id]?.Properties.Environment.Variables.MAIL_FROM, id).toBe('alerts@example.com');
      expect(ses.map((s) => [s.Action, JSON.stringify(s.Resource), s.Condition]), id).toEqual([
        ['ses:SendEmail', expect.stringContaining(':identity/example.com'), { StringEquals: { 'ses:FromAddress': 'alerts@example.com' } }],
      ]);
    }
  });

  it('refuses half the mail context, or a sender outside the identity', () => {
    expect(() => synth({ mailFrom: 'alerts@example.com' })).toThrow(/mailFrom and sesIdentity go together/);
    expect(() => synth({ mailFrom: 'alerts@other.example', sesIdentity: 'example.com' })).toThrow(/address of the sesIdentity domain/);
  });
});
