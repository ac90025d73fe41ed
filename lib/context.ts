/**
 * Deploy-time settings read from CDK context (`-c key=value`, cdk.json, or
 * cdk.context.json where an operator keeps them): values given on the command
 * line arrive as strings, the JSON files may hold numbers and booleans.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Construct } from 'constructs';

/** `-c key=value` / `--context key=value` as the CDK CLI takes them, so `npm run synth -- -c …` works without the CLI. */
export function contextArgs(args: readonly string[]): Record<string, string> {
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

/**
 * The app's context as the CDK CLI assembles it, for `npm run synth`, which
 * runs the app without the CLI: `-c` values first, then cdk.json's
 * `context`, then cdk.context.json (the file `cdk deploy` and `cdk destroy`
 * also read, where the README keeps an operator's settings).
 */
export function appContext(projectDir: string, args: readonly string[]): Record<string, unknown> {
  const read = (name: string, pick: (json: Record<string, unknown>) => unknown): Record<string, unknown> => {
    const path = join(projectDir, name);
    if (!existsSync(path)) return {};
    const value = pick(JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  };
  return { ...read('cdk.context.json', (json) => json), ...read('cdk.json', (json) => json.context), ...contextArgs(args) };
}

/** A string setting; unset or empty is undefined. */
export function contextString(scope: Construct, key: string): string | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

/** A whole number within [min, max]; unset or empty is undefined. */
export function contextInteger(scope: Construct, key: string, min: number, max: number): number | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`context ${key} must be a whole number from ${min} to ${max}`);
  return n;
}

/** A yes/no setting: `true`/`false` as JSON or as `-c` text; unset is `fallback`. */
export function contextFlag(scope: Construct, key: string, fallback: boolean): boolean {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context ${key} must be true or false`);
}

/** An https origin (no path, query or fragment); unset or empty is undefined. */
export function contextOrigin(scope: Construct, key: string): string | undefined {
  const value = contextString(scope, key);
  if (value === undefined) return undefined;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || url.protocol !== 'https:' || url.origin !== value.replace(/\/$/, '')) throw new Error(`context ${key} must be an https origin, such as https://analytics.example.com`);
  return url.origin;
}

/** The stack when `-c stackName` is unset: the name every earlier deployment has. */
export const DEFAULT_STACK_NAME = 'Tinytrack';

/**
 * `-c stackName=…`: the CloudFormation stack, and the root of every name that
 * must be unique in an account or region (lib/names.ts), so two deployments
 * (staging and production, or one per region) do not collide.
 */
export function stackNameFromContext(scope: Construct): string {
  const name = contextString(scope, 'stackName') ?? DEFAULT_STACK_NAME;
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(name)) throw new Error('context stackName must start with a letter and hold only letters, digits and hyphens (128 at most)');
  return name;
}

/**
 * The guard rails against a flood (README "Deploy to AWS"). The defaults
 * deploy on a new account whose Lambda concurrency quota is 10, where no
 * function can reserve any (AWS keeps at least 10 unreserved).
 */
export interface GuardRails {
  /** The collector's reserved concurrency: also its cap. Unset by default. */
  collectorReservedConcurrency?: number;
  /** At most this many event writer invocations at once (SQS event source: 2 to 1,000). */
  writerMaxConcurrency: number;
  /** At most this many import worker invocations (chunks) at once, likewise. */
  importWorkerMaxConcurrency: number;
  /** HTTP API `$default` stage: requests per second, steady and burst. */
  apiThrottle: { rateLimit: number; burstLimit: number };
  /** Alarm notifications also go to this address (SNS e-mail, confirmed by its owner). */
  alarmEmail?: string;
}

export const DEFAULT_WRITER_MAX_CONCURRENCY = 2;
/**
 * The event source's minimum: with the writer's 2, a new account's quota of
 * 10 keeps 6 for the collector and the API (README "Guard rails and alarms").
 */
export const DEFAULT_IMPORT_WORKER_MAX_CONCURRENCY = 2;
export const DEFAULT_API_RATE_LIMIT = 100;
export const DEFAULT_API_BURST_LIMIT = 200;

/** Loose on purpose: SNS checks the address, and its owner must confirm it. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function guardRailsFromContext(scope: Construct): GuardRails {
  const collectorReservedConcurrency = contextInteger(scope, 'collectorReservedConcurrency', 1, 100_000);
  const alarmEmail = contextString(scope, 'alarmEmail');
  if (alarmEmail !== undefined && !EMAIL.test(alarmEmail)) throw new Error('context alarmEmail must be an e-mail address');
  return {
    ...(collectorReservedConcurrency !== undefined ? { collectorReservedConcurrency } : {}),
    writerMaxConcurrency: contextInteger(scope, 'writerMaxConcurrency', 2, 1000) ?? DEFAULT_WRITER_MAX_CONCURRENCY,
    importWorkerMaxConcurrency: contextInteger(scope, 'importWorkerMaxConcurrency', 2, 1000) ?? DEFAULT_IMPORT_WORKER_MAX_CONCURRENCY,
    apiThrottle: {
      rateLimit: contextInteger(scope, 'apiThrottleRate', 1, 1_000_000) ?? DEFAULT_API_RATE_LIMIT,
      burstLimit: contextInteger(scope, 'apiThrottleBurst', 1, 1_000_000) ?? DEFAULT_API_BURST_LIMIT,
    },
    ...(alarmEmail !== undefined ? { alarmEmail } : {}),
  };
}
