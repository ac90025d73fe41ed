/**
 * DATA_DIR holds keys, the registry, events and the store's secret: owner-only
 * (directories 0700, files 0600), whatever the user's umask.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const OWNER_DIR = 0o700;
export const OWNER_FILE = 0o600;

/**
 * Creates DATA_DIR owner-only, tightens an existing looser one, and sets the
 * process umask so files the stores create themselves (LevelDB, DuckDB, their
 * logs) are owner-only too. Returns the absolute path.
 */
export function ownDataDir(dataDir: string): string {
  const dir = resolve(dataDir);
  try {
    process.umask(0o077);
  } catch {
    // Worker threads may not set the umask; the 0700 directory still shuts others out.
  }
  mkdirSync(dir, { recursive: true, mode: OWNER_DIR });
  if ((statSync(dir).mode & 0o777) !== OWNER_DIR) chmodSync(dir, OWNER_DIR);
  return dir;
}

/** Where a running server says the dashboard is (its first public origin), for `npm run admin -- login-link`. */
const serverUrlFile = (dataDir: string) => join(resolve(dataDir), 'server-url');

export function writeServerUrl(dataDir: string, url: string): void {
  writeFileSync(serverUrlFile(dataDir), url, { mode: OWNER_FILE });
}

export function readServerUrl(dataDir: string): string | null {
  try {
    return readFileSync(serverUrlFile(dataDir), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function removeServerUrl(dataDir: string): void {
  rmSync(serverUrlFile(dataDir), { force: true });
}
