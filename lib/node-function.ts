/**
 * A Lambda function from a TypeScript entry, with the project's defaults:
 * Node 22 on ARM, esbuild bundling on this machine (ESM, minified, source
 * maps), the AWS SDK v3 taken from the runtime, and its own log group kept a month.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root: entries, package-lock.json and tsconfig.json live here. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** ESM bundles still meet CommonJS dependencies that call require(). */
const REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

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
}

export class NodeFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: NodeFunctionProps) {
    const entry = join(PROJECT_ROOT, props.entry);
    if (!existsSync(entry)) throw new Error(`${props.entry} is missing: it is the Lambda entry of ${scope.node.path}/${id} and must export \`handler\``);
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry,
      handler: 'handler',
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup,
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: {
        forceDockerBundling: false,
        target: 'node22',
        format: OutputFormat.ESM,
        banner: REQUIRE_BANNER,
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        // Stack traces need the mappings, not a second copy of the sources.
        sourcesContent: false,
        externalModules: ['@aws-sdk/*'],
        logLevel: LogLevel.WARNING,
        ...(props.define ? { define: props.define } : {}),
      },
    });
  }
}
