/**
 * The CDK app: one stack, `Tinytrack`. `npx cdk deploy` runs it through
 * cdk.json; `npm run synth` runs it directly and writes cdk.out without AWS.
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { join } from 'node:path';
import { buildTracker } from '#tracker/build.ts';
import { writeDashboard } from '#dashboard/build.ts';
import { TinytrackStack } from '../lib/tinytrack-stack.ts';
import { contextArgs } from '../lib/context.ts';

// The CLI passes cdk.json's context itself; a direct run reads it so both synthesize the same template.
const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> };


const app = new App({ outdir: process.env.CDK_OUTDIR ?? 'cdk.out', context: { ...(cdkJson.context ?? {}), ...contextArgs(process.argv.slice(2)) } });
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

// The dashboard's files, built as `npm start` builds them, then uploaded by the stack.
const dashboardDir = join(app.outdir, 'dashboard-files');
await writeDashboard(dashboardDir);

new TinytrackStack(app, 'Tinytrack', {
  description: 'tinytrack: privacy-first web analytics',
  trackerScript: (await buildTracker()).code,
  dashboardDir,
  ...(account || region ? { env: { ...(account ? { account } : {}), ...(region ? { region } : {}) } } : {}),
});

app.synth();
