/**
 * Operator CLI.
 *   token <sub> [--ttl <seconds>] [--email <e>]   one ID token from the local issuer
 *   admin verify-site <hostname>                  mark a registered site verified
 *   bench                                         run the benchmarks (test/bench)
 */
import '#local/quiet-aws-sdk.ts';
import { ConfigError, loadConfig } from '#platform/config.ts';
import { openLocalStore } from '#platform/local.ts';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';

function usage(message: string): never {
  console.error(message);
  process.exit(2);
}

/** `--name value`, `--name=value`; values may be negative numbers. */
function parseOptions(args: string[]): { positional: string[]; options: Record<string, string> } {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) options[a.slice(2, eq)] = a.slice(eq + 1);
    else options[a.slice(2)] = args[++i] ?? usage(`${a} needs a value`);
  }
  return { positional, options };
}

async function token(args: string[]) {
  const config = loadConfig();
  if (config.auth) usage('AUTH_ISSUER is set: tokens come from that issuer, not the local one');
  const { positional, options } = parseOptions(args);
  const sub = positional[0] ?? usage('usage: npm run --silent token -- <sub> [--ttl <seconds>] [--email <e>]');
  const ttl = options.ttl === undefined ? 3600 : Number(options.ttl);
  if (!Number.isFinite(ttl)) usage('--ttl must be a number of seconds');
  const jwt = await mintIdToken(loadIssuerKey(config.dataDir), sub, { ttlSeconds: Math.trunc(ttl), email: options.email });
  process.stdout.write(`${jwt}\n`);
}

async function admin(args: string[]) {
  const [command, hostname] = args;
  if (command !== 'verify-site' || !hostname) usage('usage: npm run --silent admin -- verify-site <hostname>');
  const config = loadConfig();
  const store = await openLocalStore(config);
  try {
    const site = await new DynamoRegistry(store.client, config.tableName).markVerified(hostname, new Date().toISOString());
    if (!site) {
      console.error(`unknown site: ${hostname}`);
      process.exitCode = 1;
      return;
    }
    console.log(`${site.hostname} verified at ${site.verified_at}`);
  } finally {
    await store.close();
  }
}

async function bench() {
  const { runBenchmarks } = await import('../test/bench/run.ts');
  await runBenchmarks();
}

const [command, ...rest] = process.argv.slice(2);
const commands: Record<string, (args: string[]) => Promise<void>> = { token, admin, bench };
const run = commands[command ?? ''] ?? (() => usage('usage: tt <token|admin|bench> …'));
await run(rest).catch((e: unknown) => {
  if (e instanceof ConfigError) usage(e.message);
  throw e;
});
