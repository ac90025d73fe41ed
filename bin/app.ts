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

// The CLI passes cdk.json's context itself; a direct run reads it so both synthesize the same template.
const cdkJson = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> };

/** `-c key=value` / `--context key=value` as the CDK CLI takes them, so `npm run synth -- -c …` works without the CLI. */
function contextArgs(args: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '-c' && args[i] !== '--context') continue;
    const pair = args[++i] ?? '';
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`context needs key=value, got "${pair}"`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

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
