/**
 * What the AWS deployment keeps of a visit beyond the rows (docs/privacy.md):
 * no API Gateway access log and no CloudFront access log (either would
 * store each visitor's address), and every function's log kept one month.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, resourcesOf, type Resource } from './template-helpers.ts';

const CLICKHOUSE = {
  clickhouseUrl: 'https://abc123.eu-west-1.aws.clickhouse.cloud:8443',
  clickhouseSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-AbCdEf',
  clickhouseReaderSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-clickhouse-reports-GhIjKl',
};

let template: Template;
beforeAll(() => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...CLICKHOUSE } });
  template = Template.fromStack(new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE }));
}, 120_000);

const all = (type: string) => Object.values(resourcesOf(template, type) as Record<string, Resource>);

describe('the stack keeps no visitor address', () => {
  it('has no API Gateway access log', () => {
    const stages = all('AWS::ApiGatewayV2::Stage');
    expect(stages.length).toBeGreaterThan(0);
    expect(stages.filter((s) => s.Properties.AccessLogSettings)).toEqual([]);
  });

  it('has no CloudFront access log', () => {
    const distributions = all('AWS::CloudFront::Distribution');
    expect(distributions.length).toBeGreaterThan(0);
    expect(distributions.filter((d) => d.Properties.DistributionConfig.Logging)).toEqual([]);
  });

  it('keeps every function’s log for one month', () => {
    const groups = all('AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThan(0);
    expect([...new Set(groups.map((g) => g.Properties.RetentionInDays))]).toEqual([30]);
  });
});
