/**
 * A Lambda function from a TypeScript entry, with the project's defaults:
 * Node 22 on ARM, esbuild bundling on this machine (ESM, minified), the AWS
 * SDK v3 bundled or taken from the runtime as measured (SDK_BUNDLED), the
 * lazily loaded packages beside the bundle (LAZY_MODULES), and its own log
 * group kept a month. `npm run bench` and test/cdk/bundles.test.ts build the
 * same bundles through lambdaBuildOptions.
 */
import { Duration, RemovalPolicy, Size } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root: entries, package-lock.json and tsconfig.json live here. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

const NODE_TARGET = 'node22';

/** ESM bundles still meet CommonJS dependencies that call require(). */
const REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Packages the code loads on first use (functions/domain/lazy-module.ts):
 * left out of the bundle and shipped, each bundled and minified into one
 * CommonJS file, as node_modules/<name>/index.js beside it, in the functions
 * whose bundle names them.
 */
export const LAZY_MODULES = ['tr46', 'htmlparser2', '@tryghost/referrer-parser'] as const;

/** The esbuild options of a lazy package's file: its CommonJS entry, dependencies inlined. */
export function lazyModuleBuild(name: string): { entryPoints: string[]; bundle: true; minify: true; platform: 'node'; target: string; format: 'cjs' } {
  return { entryPoints: [createRequire(import.meta.url).resolve(name)], bundle: true, minify: true, platform: 'node', target: NODE_TARGET, format: 'cjs' };
}


/**
 * Whether the AWS SDK v3 goes into the bundle (true) or is taken from the
 * runtime (false), measured by `npm run bench`, which times a fresh import of
 * each bundle both ways: bundled was faster for every function that uses the
 * SDK (docs/decisions.md "Composition roots and Lambda bundles").
 */
export const SDK_BUNDLED = true;


/**
 * Set in every function's bundle: the reports' DuckDB statements (reports/sql, `WITHOUT_DUCKDB`)
 * fold away, since a Lambda reads ClickHouse or Timestream, never DuckDB.
 */
export const LAMBDA_DEFINES: Readonly<Record<string, string>> = { 'process.env.TT_LAMBDA_BUNDLE': '"1"' };

/** What every function's bundle is built with, as esbuild options (the bench and the budget test build from these). */
export function lambdaBuildOptions(entry: string, define: Record<string, string> = {}, sdkBundled = SDK_BUNDLED) {
  return {
    entryPoints: [join(PROJECT_ROOT, entry)],
    bundle: true,
    minify: true,
    platform: 'node' as const,
    target: NODE_TARGET,
    format: 'esm' as const,
    banner: { js: REQUIRE_BANNER },
    mainFields: ['module', 'main'],
    external: [...(sdkBundled ? [] : ['@aws-sdk/*']), ...LAZY_MODULES],
    define: { ...LAMBDA_DEFINES, ...define },
  };
}

/** Shell commands that put each lazy package a bundle names beside it (run after bundling, on this machine). */
function lazyModuleCommands(inputDir: string, outputDir: string): string[] {
  const esbuild = join(inputDir, 'node_modules', '.bin', 'esbuild');
  return LAZY_MODULES.map((name) => {
    const o = lazyModuleBuild(name);
    const out = join(outputDir, 'node_modules', name, 'index.js');
    return `if grep -q '"${name}"' "${join(outputDir, 'index.mjs')}"; then "${esbuild}" "${o.entryPoints[0]}" --bundle --minify --platform=node --target=${o.target} --format=cjs --log-level=warning --outfile="${out}"; fi`;
  });
}

/**
 * What a function of an S3-store stack (issue 44; its environment names EVENTS_BUCKET) ships
 * beside its bundle: the S3 store's module (functions/aws/s3-stores.ts, which the entry loads
 * only on that store) and DuckDB, whose native binding is the one npm installed on the deploying
 * machine: Linux x86-64, so these functions run on x86-64 (docs/decisions.md "Issue 44").
 */
export const S3_STORES_ENTRY = 'functions/aws/s3-stores.ts';
export const DUCKDB_PACKAGES = ['@duckdb/node-api', '@duckdb/node-bindings', '@duckdb/node-bindings-linux-x64'] as const;
/** DuckDB's memory and threads (1,769 MB is one full vCPU), and /tmp for the object cache (adapters/s3-events/s3-events.ts). */
export const S3_STORE_MEMORY_MB = 2048;
export const S3_STORE_TMP_MB = 3072;

/** Shell commands that build the S3 store's module and copy DuckDB beside a bundle (run after bundling, on this machine). */
function s3StoreCommands(inputDir: string, outputDir: string): string[] {
  const esbuild = join(inputDir, 'node_modules', '.bin', 'esbuild');
  return [
    `"${esbuild}" "${join(inputDir, S3_STORES_ENTRY)}" --bundle --minify --platform=node --target=${NODE_TARGET} --format=esm --main-fields=module,main --banner:js="${REQUIRE_BANNER}" --external:@duckdb/* --log-level=warning --outfile="${join(outputDir, 's3-stores.mjs')}"`,
    ...DUCKDB_PACKAGES.map((name) => `mkdir -p "${join(outputDir, 'node_modules', name)}" && cp -RL "${join(inputDir, 'node_modules', name)}/." "${join(outputDir, 'node_modules', name)}/"`),
  ];
}

/**
 * esbuild runs as a command, and Linux refuses any one argument over 128 KiB:
 * a `define` longer than this (the OpenAPI document) goes to a file esbuild
 * injects instead, which sets the same `process.env` value before any other
 * code of the bundle runs (the entries read it through platform/config.ts
 * lambdaEnv). Shorter ones stay defines.
 */
export const DEFINE_ARGUMENT_MAX = 32 * 1024;

/** The defines short enough for the command line, and the file that sets the others. */
export function commandLineDefines(define: Record<string, string>): { define: Record<string, string>; inject: string[] } {
  const short = Object.entries(define).filter(([, value]) => value.length <= DEFINE_ARGUMENT_MAX);
  const long = Object.entries(define).filter(([, value]) => value.length > DEFINE_ARGUMENT_MAX);
  if (long.length === 0) return { define: Object.fromEntries(short), inject: [] };
  const code = long.map(([key, value]) => `${key} = ${value};\n`).join('');
  const dir = join(tmpdir(), 'tinytrack-defines');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  writeFileSync(file, code);
  return { define: Object.fromEntries(short), inject: [file] };
}

export interface NodeFunctionProps {
  /** Entry path relative to the project root. */
  entry: string;
  description: string;
  environment?: Record<string, string>;
  /** esbuild `define`: identifier → JSON text. */
  define?: Record<string, string>;
  memorySize?: number;
  timeout?: Duration;
  /** Reserved concurrency (also the function's cap); unset: the account's unreserved pool. */
  reservedConcurrency?: number | undefined;
  /**
   * Source maps in the bundle and NODE_OPTIONS=--enable-source-maps: readable stack traces for
   * 5–40 ms more at each cold start (docs/decisions.md "Composition roots and Lambda bundles"). Default true.
   */
  sourceMaps?: boolean;
}

export class NodeFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: NodeFunctionProps) {
    const entry = join(PROJECT_ROOT, props.entry);
    if (!existsSync(entry)) throw new Error(`${props.entry} is missing: it is the Lambda entry of ${scope.node.path}/${id} and must export \`handler\``);
    const sourceMaps = props.sourceMaps ?? true;
    const s3Store = props.environment?.EVENTS_BUCKET !== undefined;
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry,
      handler: 'handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: s3Store ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      memorySize: s3Store ? Math.max(props.memorySize ?? 0, S3_STORE_MEMORY_MB) : (props.memorySize ?? 512),
      ...(s3Store ? { ephemeralStorageSize: Size.mebibytes(S3_STORE_TMP_MB) } : {}),
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup,
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      environment: { ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}), ...props.environment },
      bundling: {
        forceDockerBundling: false,
        target: NODE_TARGET,
        format: OutputFormat.ESM,
        banner: REQUIRE_BANNER,
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: sourceMaps,
        // Stack traces need the mappings, not a second copy of the sources.
        sourcesContent: false,
        externalModules: [...(SDK_BUNDLED ? [] : ['@aws-sdk/*']), ...LAZY_MODULES],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (inputDir: string, outputDir: string) => [...lazyModuleCommands(inputDir, outputDir), ...(s3Store ? s3StoreCommands(inputDir, outputDir) : [])],
        },
        logLevel: LogLevel.WARNING,
        ...commandLineDefines({ ...LAMBDA_DEFINES, ...props.define }),
      },
    });
  }
}
