/**
 * Deploy-time settings read from CDK context (`-c key=value` or cdk.json):
 * values given on the command line arrive as strings, cdk.json may hold numbers.
 */
import type { Construct } from 'constructs';

/** A string setting; unset or empty is undefined. */
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
  /** HTTP API `$default` stage: requests per second, steady and burst. */
  apiThrottle: { rateLimit: number; burstLimit: number };
  /** Alarm notifications also go to this address (SNS e-mail, confirmed by its owner). */
  alarmEmail?: string;
}

export const DEFAULT_WRITER_MAX_CONCURRENCY = 2;
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
    apiThrottle: {
      rateLimit: contextInteger(scope, 'apiThrottleRate', 1, 1_000_000) ?? DEFAULT_API_RATE_LIMIT,
      burstLimit: contextInteger(scope, 'apiThrottleBurst', 1, 1_000_000) ?? DEFAULT_API_BURST_LIMIT,
    },
    ...(alarmEmail !== undefined ? { alarmEmail } : {}),
  };
}
