/**
 * Each Lambda bundle as the stack builds it (lib/node-function.ts
 * lambdaBuildOptions), its own code's size (everything but the AWS SDK,
 * minified) against its budget, and the time a fresh Node process takes to
 * import it to a ready handler, two ways: the AWS SDK bundled, and the SDK
 * left out and loaded from node_modules as the Lambda runtime provides it;
 * then the chosen way with source maps (written and enabled) against none.
 * Bundles are written under .bench-bundles/ in the project, so the SDK
 * resolves from its node_modules exactly as from the runtime's.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildTracker } from '#tracker/build.ts';
import { buildOpenApi } from '#http/openapi.ts';
import { lambdaBundles, type LambdaBundle } from '../../lib/bundles.ts';
import { LAZY_MODULES, PROJECT_ROOT, SDK_BUNDLED, lambdaBuildOptions, lazyModuleBuild } from '../../lib/node-function.ts';
import { envNumber, fmt, median, type BenchRow } from './stats.ts';

/** Fresh processes per way and bundle; the median counts. */
const IMPORTS = envNumber('BENCH_BUNDLE_IMPORTS', 9);

/** What each entry's root requires at start, with made-up values (constructing SDK clients calls nothing). */
const LAMBDA_ENV: Record<string, string> = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'tinytrack',
  AUTH_ISSUER: 'https://issuer.example/',
  AUTH_AUDIENCE: 'bench',
  PUBLIC_URL: 'https://api.example',
  EVENT_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/events',
  IMPORT_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/imports',
  IMPORT_KMS_KEY_ID: 'arn:aws:kms:eu-west-1:000000000000:key/00000000-0000-0000-0000-000000000000',
  TIMESTREAM_DATABASE: 'tinytrack',
  TIMESTREAM_TABLE: 'events',
  ICON_BUCKET: 'tinytrack-icons',
};

const IMPORT_SCRIPT =
  "const t = performance.now(); const m = await import(process.argv[1]); if (typeof m.handler !== 'function') throw new Error('no handler'); process.stdout.write(String(performance.now() - t));";

interface Built {
  file: string;
  bytes: number;
  /** Lazy packages the bundle names, with the bytes of the file shipped for each. */
  lazy: { name: string; bytes: number }[];
}

async function buildBundle(bundle: LambdaBundle, dir: string, sdkBundled: boolean, sourcemap: boolean): Promise<Built> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  await build({ ...lambdaBuildOptions(bundle.entry, bundle.define, sdkBundled), outfile: file, logLevel: 'silent', ...(sourcemap ? { sourcemap: 'linked', sourcesContent: false } : {}) });
  const code = readFileSync(file, 'utf8');
  const lazy: Built['lazy'] = [];
  for (const name of LAZY_MODULES) {
    if (!code.includes(`"${name}"`)) continue;
    const out = join(dir, 'node_modules', name, 'index.js');
    await build({ ...lazyModuleBuild(name), outfile: out, logLevel: 'silent' });
    lazy.push({ name, bytes: statSync(out).size });
  }
  return { file, bytes: statSync(file).size, lazy };
}

/** Milliseconds from import() to a ready handler in a fresh process: the median of IMPORTS runs. */
function importMs(file: string, sourceMaps: boolean): number {
  const times: number[] = [];
  for (let i = 0; i < IMPORTS; i++) {
    const args = [...(sourceMaps ? ['--enable-source-maps'] : []), '--input-type=module', '-e', IMPORT_SCRIPT, pathToFileURL(file).href];
    times.push(Number(execFileSync(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV }, encoding: 'utf8' })));
  }
  return median(times);
}

const kib = (bytes: number) => `${fmt(bytes / 1024)} KiB`;
const ms = (n: number) => `${n.toFixed(0)} ms`;

async function measure(bundle: LambdaBundle, root: string): Promise<BenchRow> {
  const dir = (way: string) => join(root, bundle.name.replace('/', '-'), way);
  const external = await buildBundle(bundle, dir('sdk-external'), false, false);
  const bundled = await buildBundle(bundle, dir('sdk-bundled'), true, false);
  const externalMs = importMs(external.file, false);
  const bundledMs = importMs(bundled.file, false);
  const mapped = await buildBundle(bundle, dir('source-maps'), SDK_BUNDLED, true);
  const mappedMs = importMs(mapped.file, true);
  const lazy = external.lazy.map((l) => `${l.name} ${kib(l.bytes)}`).join(', ');
  const faster = externalMs <= bundledMs ? 'SDK from the runtime' : 'SDK bundled';
  const plainMs = SDK_BUNDLED ? bundledMs : externalMs;
  return {
    name: `Lambda bundle ${bundle.name}`,
    value:
      `${kib(external.bytes)} own code${lazy ? ` (on first use: ${lazy})` : ''}; ready in ${ms(bundledMs)} with the SDK bundled (${kib(bundled.bytes)}), ` +
      `${ms(externalMs)} with it from node_modules: ${faster} faster; source maps (${bundle.sourceMaps ? 'on' : 'off'}) ${ms(mappedMs)} against ${ms(plainMs)} without`,
    ...(bundle.budget === null ? {} : { budget: `≤ ${kib(bundle.budget)} own code`, ok: external.bytes <= bundle.budget }),
  };
}

export async function bundleBench(): Promise<BenchRow[]> {
  const texts = { trackerScript: (await buildTracker()).code, apiDocument: JSON.stringify(buildOpenApi()) };
  const root = join(PROJECT_ROOT, '.bench-bundles');
  const rows: BenchRow[] = [];
  try {
    for (const bundle of lambdaBundles(texts)) rows.push(await measure(bundle, root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
