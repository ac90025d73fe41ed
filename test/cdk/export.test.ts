/**
 * The owner export on AWS (issue 42): the `export` route group answers on
 * its own Lambda Function URL in RESPONSE_STREAM mode (API Gateway's HTTP
 * API buffers every answer, at most 10 MB in 30 s), with Lambda's 15
 * minutes, CORS for the dashboard's origin only, and no HTTP API route; the
 * dashboard's configuration and an output name that URL. These tests skip bundling.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { NodeFunction } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import { DASHBOARD_FIXTURE, logicalIdOf, renderValue, resourcesOf } from './template-helpers.ts';

const synth = (context: Record<string, unknown> = {}) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream', ...context } });
  const stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
  const template = Template.fromStack(stack);
  const fnId = logicalIdOf(stack.api.functions.get('export') as NodeFunction);
  const url = Object.entries(resourcesOf(template, 'AWS::Lambda::Url')).find(([, u]) => JSON.stringify(u.Properties.TargetFunctionArn).includes(fnId));
  return { template, fnId, url };
};

describe('TinytrackStack export', () => {
  it('serves the export on its own Function URL in RESPONSE_STREAM mode, CORS for the dashboard origin alone, and not on the HTTP API', () => {
    const { template, url } = synth({ dashboard: 'false', dashboardOrigin: 'https://analytics.example.com' });
    expect(url, 'the export Function URL').toBeDefined();
    const [, resource] = url!;
    expect([resource.Properties.InvokeMode, resource.Properties.AuthType]).toEqual(['RESPONSE_STREAM', 'NONE']);
    expect(resource.Properties.Cors.AllowOrigins).toEqual(['https://analytics.example.com']);
    expect(resource.Properties.Cors.AllowHeaders).toEqual(['authorization']);
    const routeKeys = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey);
    expect(routeKeys).not.toContain('GET /api/sites/{hostname}/export');
  });

  it('gives the function 15 minutes, a cap of 500,000 rows an export (Lambda streams at most 200 MB), and names its URL in the dashboard configuration and the ExportUrl output', () => {
    const { template, fnId, url } = synth({ dashboard: 'false', dashboardOrigin: 'https://analytics.example.com' });
    const fn = resourcesOf(template, 'AWS::Lambda::Function')[fnId];
    expect([fn?.Properties.Timeout, fn?.Properties.Environment.Variables.EXPORT_MAX_ROWS]).toEqual([900, '500000']);
    const [urlId] = url!;
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(renderValue(outputs.ExportUrl?.Value)).toBe(`\${${urlId}.FunctionUrl}`);
    const config = JSON.parse(renderValue(outputs.DashboardConfig?.Value)) as { exportUrl: string; liveUrl: string };
    expect(config.exportUrl).toBe(`\${${urlId}.FunctionUrl}`);
    expect(config.liveUrl).not.toBe(config.exportUrl);
  });

  it('with the stack’s own dashboard: CORS lets in the distribution’s origin', () => {
    const { url } = synth();
    expect(JSON.stringify(url![1].Properties.Cors.AllowOrigins)).toMatch(/DashboardDistribution.*DomainName/);
  });
});
