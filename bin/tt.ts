/**
 * Operator CLI.
 *   token <sub> [--ttl <seconds>] [--email <e>]   one ID token from the local issuer
 *   admin verify-site <hostname>                  mark a registered site verified
 *   admin login-link <user>                       a one-time dashboard sign-in link (local issuer)
 *   admin replay-dead-letters                     write the local dead letters to the stores (server stopped)
 *   admin redrive <dead-letter queue URL>…        AWS: move SQS dead letters back to their queues
 *   bench                                         run the benchmarks (test/bench)
 */
import '#local/quiet-aws-sdk.ts';
import { ConfigError, loadConfig } from '#platform/config.ts';
import { resolve } from 'node:path';
import { DEAD_LETTER_REPLAY_MS, openLocalStore, openRunningStore, startLocalRuntime } from '#local/adapters.ts';
import { readServerUrl } from '#local/data-dir.ts';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { DynamoLoginLinks } from '#adapters/dynamodb/login-links.ts';
import { itemTable } from '#adapters/dynamodb/item-table.ts';
import { LOGIN_LINK_TTL_SECONDS, loginCodeHash, loginLinkUrl, newLoginCode } from '#domain/login-link.ts';

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

const ADMIN_USAGE =
  'usage: npm run --silent admin -- verify-site <hostname> | login-link <user> | replay-dead-letters | redrive <dead-letter queue URL>… [--max-per-second <n>]';

async function admin(args: string[]) {
  const [command, ...rest] = args;
  const commands: Record<string, (args: string[]) => Promise<void>> = { 'verify-site': verifySite, 'login-link': loginLink, 'replay-dead-letters': replayDeadLetters, redrive };
  await (commands[command ?? ''] ?? (() => usage(ADMIN_USAGE)))(rest);
}

async function verifySite([hostname]: string[]) {
  if (!hostname) usage(ADMIN_USAGE);
  const config = loadConfig();
  const store = await openLocalStore(config);
  try {
    const site = await new DynamoRegistry(store.client, config.tableName).markVerified(hostname, new Date().toISOString());
    if (!site) {
      console.error(`unknown site: ${hostname}`);
      process.exitCode = 1;
      return;
    }
    // A running server takes the change in before this command returns: its next beacon is stored.
    await store.siteChanged(site.hostname).catch((e: unknown) => {
      console.error(`the running server was not told (${(e as Error).message}): it sees the change within 15 s`);
    });
    console.log(`${site.hostname} verified at ${site.verified_at}`);
  } finally {
    await store.close();
  }
}

/**
 * Prints `{origin}/login#code=…`: it signs `user` in to the dashboard once,
 * within 10 minutes. The origin is the running server's (its first PUBLIC_URL,
 * else where it listens); with no server running on DATA_DIR, it refuses.
 */
async function loginLink([user]: string[]) {
  if (!user) usage(ADMIN_USAGE);
  const config = loadConfig();
  if (config.auth) usage('AUTH_ISSUER is set: owners sign in with that issuer, not with login links');
  // A link is for a running server's dashboard: its store keeps the link, its address is the link's.
  const store = await openRunningStore(config);
  const origin = readServerUrl(config.dataDir);
  if (!store || !origin) {
    await store?.close();
    usage(`no tinytrack server is running on DATA_DIR ${resolve(config.dataDir)}: start it with npm start, or run this with the server's DATA_DIR`);
  }
  try {
    const code = newLoginCode();
    await new DynamoLoginLinks(itemTable(store.client, config.tableName)).create(loginCodeHash(code), user, Math.floor(Date.now() / 1000) + LOGIN_LINK_TTL_SECONDS);
    console.log(loginLinkUrl(origin, code));
  } finally {
    await store.close();
  }
}

/**
 * The running server replays dead letters itself; this is for a stopped one:
 * it opens the stores as a start would (rows a crash left in the journal are
 * written too), replays both dead-letter files and waits until all is stored.
 */
async function replayDeadLetters() {
  const config = loadConfig();
  let runtime: Awaited<ReturnType<typeof startLocalRuntime>>;
  try {
    runtime = await startLocalRuntime(config, { background: false });
  } catch (e) {
    if (/lock/i.test((e as Error).message)) {
      usage(`a server is running on ${config.dataDir}: it replays dead letters itself every ${DEAD_LETTER_REPLAY_MS / 1000} s once its store is healthy; stop it to replay by hand`);
    }
    throw e;
  }
  try {
    const events = await runtime.eventQueue.replayDeadLetters();
    const imports = await runtime.importQueue.replayDeadLetters();
    await Promise.all([runtime.eventQueue.drain(), runtime.importQueue.drain()]);
    const left = runtime.eventQueue.deadLettered + runtime.importQueue.deadLettered;
    console.log(`replayed ${events} event rows and ${imports} import chunks${left > 0 ? `; ${left} failed again and are back in the dead-letter files` : ''}`);
  } finally {
    await runtime.close();
  }
}

/** AWS: SQS moves each dead-letter queue's messages back to the queue they came from. */
async function redrive(args: string[]) {
  const { positional: urls, options } = parseOptions(args);
  if (urls.length === 0) usage(ADMIN_USAGE);
  const maxPerSecond = options['max-per-second'] === undefined ? undefined : Number(options['max-per-second']);
  if (maxPerSecond !== undefined && !(Number.isInteger(maxPerSecond) && maxPerSecond > 0)) usage('--max-per-second must be a positive integer');
  const { SQSClient } = await import('@aws-sdk/client-sqs');
  const { startRedrive } = await import('#adapters/sqs/redrive.ts');
  const sqs = new SQSClient({});
  for (const url of urls) {
    const started = await startRedrive(sqs, url, maxPerSecond);
    console.log(`${started.queueUrl}: moving about ${started.messages} messages back to their queue (task ${started.taskHandle})`);
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
