/**
 * What `npm start` says around start-up: the next steps once it listens, and
 * one line instead of a stack trace for the starts that cannot happen (the
 * data directory held by another server, the port taken, a bad setting).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { DEFAULT_DATA_DIR, type Config } from '#platform/config.ts';
import type { LogLevel } from '#platform/log.ts';

/** A start-up failure whose message is the whole story: printed as one line. */
export class StartupError extends Error {
  override name = 'StartupError';
}

const dataDirInUse = (dataDir: string) =>
  new StartupError(`DATA_DIR ${resolve(dataDir)} is in use by another tinytrack server: stop it, or set DATA_DIR to another directory`);

/**
 * Fails when another process holds the registry's LevelDB lock. dynalite would
 * find out too, but throws it from a request callback, past any catch.
 */
export async function assertDataDirFree(dataDir: string): Promise<void> {
  const path = join(resolve(dataDir), 'dynamodb');
  if (!existsSync(join(path, 'LOCK'))) return;
  const db = new ClassicLevel(path, { createIfMissing: false });
  try {
    await db.open();
  } catch (e) {
    if ((e as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED') throw dataDirInUse(dataDir);
    throw e;
  } finally {
    await db.close();
  }
}

/** The one line for a start-up failure we can explain, or null for anything else (then the stack helps). */
export function startupFailure(e: unknown, config: Pick<Config, 'host' | 'port' | 'dataDir'> | null): string | null {
  if (e instanceof StartupError) return e.message;
  const { code, message } = (e ?? {}) as { code?: string; message?: string };
  if (message?.startsWith('invalid configuration:')) return message;
  if (!config) return null;
  if (code === 'EADDRINUSE') return `port ${config.port} on ${config.host} is already in use: stop what listens there, or set PORT`;
  if (code === 'EACCES' && /listen/.test(message ?? '')) return `no permission to listen on ${config.host}:${config.port}: set PORT to 1024 or above`;
  if (code === 'EADDRNOTAVAIL') return `${config.host} is not an address of this machine: set HOST`;
  // DuckDB's lock on events.duckdb: another server, or a DuckDB client holding the file.
  if (message?.includes('Could not set lock on file')) return dataDirInUse(config.dataDir).message;
  return null;
}

/** The lines after `listening on …`: where to go next. */
export function nextSteps(url: string, config: Pick<Config, 'dataDir' | 'auth'>, logLevel: LogLevel, mail = ''): string[] {
  const identity = config.auth
    ? [
        `  identity:      OIDC issuer ${config.auth.issuer}${config.auth.audience ? ` (audience ${config.auth.audience})` : ''}`,
        '  get a token:   sign in with that issuer and send its ID token as "Authorization: Bearer <token>"',
      ]
    : [
        '  identity:      local issuer (AUTH_ISSUER unset; its key is in the data directory)',
        `  dashboard:     ${url}/  (sign in with a link: ${resolve(config.dataDir) === resolve(DEFAULT_DATA_DIR) ? '' : `DATA_DIR=${resolve(config.dataDir)} `}npm run admin -- login-link <user id>)`,
        '  get a token:   npm run --silent token -- <user id>',
      ];
  return [
    ...(config.auth ? [`  dashboard:     ${url}/  (sign in with that issuer)`] : []),
    ...identity,
    `  API document:  ${url}/api/openapi.json`,
    `  tracker:       ${url}/latest.js`,
    `  data:          ${resolve(config.dataDir)}`,
    ...(mail ? [`  mail:          ${mail}${mail.startsWith('outbox') ? ' (set SMTP_URL to send through a relay)' : ''}`] : []),
    `  logs:          JSON lines at LOG_LEVEL=${logLevel}${logLevel === 'debug' ? ' (a line per beacon too)' : ''}`,
  ];
}
