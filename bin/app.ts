/**
 * The CDK app: one stack, `Tinytrack`. `npx cdk deploy` runs it through
 * cdk.json; `npm run synth` runs it directly and writes cdk.out without AWS.
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { buildTracker } from '#tracker/build.ts';
import { TinytrackStack } from '../lib/tinytrack-stack.ts';

// The CLI passes cdk.json's context itself; a direct run reads it so both synthesize the same template.
const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> };

const app = new App({ outdir: process.env.CDK_OUTDIR ?? 'cdk.out', context: cdkJson.context ?? {} });
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

new TinytrackStack(app, 'Tinytrack', {
  description: 'tinytrack: privacy-first web analytics',
  trackerScript: (await buildTracker()).code,
  ...(account || region ? { env: { ...(account ? { account } : {}), ...(region ? { region } : {}) } } : {}),
});

app.synth();
