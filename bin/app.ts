/**
 * The CDK app: one stack, `Tinytrack` unless `-c stackName=…` names another.
 * `npx cdk deploy` runs it through cdk.json; `npm run synth` runs it directly
 * and writes cdk.out without AWS. Both read the settings an operator keeps in
 * cdk.context.json, so `cdk deploy` and `cdk destroy` need no flags.
 */
import { App } from 'aws-cdk-lib';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTracker } from '#tracker/build.ts';
import { writeDashboard } from '#dashboard/build.ts';
import { TinytrackStack } from '../lib/tinytrack-stack.ts';
import { appContext, stackNameFromContext } from '../lib/context.ts';

// The CLI passes the context itself; a direct run assembles it the same way.
const app = new App({ outdir: process.env.CDK_OUTDIR ?? 'cdk.out', context: appContext(fileURLToPath(new URL('..', import.meta.url)), process.argv.slice(2)) });
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

// The dashboard's files, built as `npm start` builds them: the stack uploads them, or, with
// `-c dashboard=false`, the operator serves them elsewhere (README "Deploy to AWS").
const dashboardDir = join(app.outdir, 'dashboard-files');
await writeDashboard(dashboardDir);

const stackName = stackNameFromContext(app);
new TinytrackStack(app, stackName, {
  stackName,
  description: 'tinytrack: privacy-first web analytics',
  trackerScript: (await buildTracker()).code,
  dashboardDir,
  ...(account || region ? { env: { ...(account ? { account } : {}), ...(region ? { region } : {}) } } : {}),
});

app.synth();
