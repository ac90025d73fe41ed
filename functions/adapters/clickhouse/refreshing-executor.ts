/**
 * An executor whose credentials come from a secret that may be rotated
 * while the function runs: a statement the server refuses for
 * authentication re-reads the credentials once (concurrent refusals share
 * the read) and runs again with them if they changed, so a rotated password
 * takes effect without a redeploy. Re-reads of a secret that did not change
 * are at most one per `minRereadMs`, so a wrong password does not become a
 * Secrets Manager call per request.
 *
 * Every statement that still fails is logged as one `clickhouse request
 * failed` line (the stack counts them into an alarm): the operation and the
 * server's error code and type, never the message, which may quote the rows.
 */
import type { ClickHouseExecutor, ClickHouseParams } from './executor.ts';
import type { InfoLogger } from '#ports/logger.ts';

export interface ClickHouseCredentials {
  user: string;
  password: string;
}

/** The log line of a failed statement; lib/clickhouse.ts counts it. */
export const CLICKHOUSE_FAILURE_LOG = 'clickhouse request failed';

/** ClickHouse's refusals of a user or password: AUTHENTICATION_FAILED, and the older UNKNOWN_USER, WRONG_PASSWORD, REQUIRED_PASSWORD. */
const AUTH_CODES = new Set(['516', '192', '193', '194']);
const AUTH_TYPES = new Set(['AUTHENTICATION_FAILED', 'UNKNOWN_USER', 'WRONG_PASSWORD', 'REQUIRED_PASSWORD']);

/** A server error's code and type as @clickhouse/client parses them (`Code: 516. DB::Exception: … (AUTHENTICATION_FAILED)`). */
function serverError(e: unknown): { code: string | null; type: string | null } {
  const { code, type, message } = (e ?? {}) as { code?: unknown; type?: unknown; message?: unknown };
  const fromText = typeof message === 'string' ? /^Code: (\d+)\./.exec(message)?.[1] ?? null : null;
  return { code: typeof code === 'string' ? code : fromText, type: typeof type === 'string' ? type : null };
}

export function isAuthenticationFailure(e: unknown): boolean {
  const { code, type } = serverError(e);
  return (code !== null && AUTH_CODES.has(code)) || (type !== null && AUTH_TYPES.has(type));
}

export interface RefreshingExecutorOptions {
  /** The credentials now (reads the secret). */
  read: () => Promise<ClickHouseCredentials>;
  /** An executor over these credentials. */
  connect: (credentials: ClickHouseCredentials) => ClickHouseExecutor;
  /** The credentials read at start. */
  initial: ClickHouseCredentials;
  /** Where failed statements and re-reads of the credentials are reported. */
  log: InfoLogger;
  /** Least time between two re-reads that found the same credentials. Default 10 s. */
  minRereadMs?: number;
  now?: () => number;
}

interface Connection {
  credentials: ClickHouseCredentials;
  executor: ClickHouseExecutor;
}

const same = (a: ClickHouseCredentials, b: ClickHouseCredentials) => a.user === b.user && a.password === b.password;

export function refreshingExecutor(options: RefreshingExecutorOptions): ClickHouseExecutor {
  const { log } = options;
  const now = options.now ?? Date.now;
  const minRereadMs = options.minRereadMs ?? 10_000;
  let current: Connection = { credentials: options.initial, executor: options.connect(options.initial) };
  // Executors of replaced credentials: statements may still run on them; closed with this one.
  const retired: ClickHouseExecutor[] = [];
  let rereading: Promise<Connection> | null = null;
  let unchangedAt = -Infinity;

  /** The connection to retry on after `failed` was refused, or null when there is no other (nothing changed). */
  async function renewed(failed: Connection): Promise<Connection | null> {
    if (current !== failed) return current;
    if (!rereading) {
      if (now() - unchangedAt < minRereadMs) return null;
      rereading = options
        .read()
        .then((credentials) => {
          if (current !== failed) return current;
          if (same(credentials, failed.credentials)) {
            unchangedAt = now();
            return failed;
          }
          retired.push(failed.executor);
          current = { credentials, executor: options.connect(credentials) };
          log.info('clickhouse credentials re-read: the secret changed');
          return current;
        })
        .finally(() => {
          rereading = null;
        });
    }
    const next = await rereading;
    return next === failed ? null : next;
  }

  function rereadFailed(e: unknown): null {
    log.error('clickhouse credentials re-read failed', { name: (e as Error)?.name ?? null });
    return null;
  }

  function logFailure(operation: string, e: unknown): void {
    const { code, type } = serverError(e);
    log.error(CLICKHOUSE_FAILURE_LOG, { operation, code, type, name: (e as Error)?.name ?? null });
  }

  async function run<T>(operation: string, statement: (executor: ClickHouseExecutor) => Promise<T>): Promise<T> {
    const used = current;
    try {
      return await statement(used.executor);
    } catch (e) {
      const next = isAuthenticationFailure(e) ? await renewed(used).catch(rereadFailed) : null;
      if (next) {
        try {
          return await statement(next.executor);
        } catch (again) {
          logFailure(operation, again);
          throw again;
        }
      }
      logFailure(operation, e);
      throw e;
    }
  }

  return {
    query: <T>(sql: string, params?: ClickHouseParams) => run('query', (ex) => ex.query<T>(sql, params)),
    command: (sql: string, params?: ClickHouseParams) => run('command', (ex) => ex.command(sql, params)),
    insert: (table: string, rows: readonly Record<string, unknown>[]) => run('insert', (ex) => ex.insert(table, rows)),
    async close() {
      await Promise.all([...retired, current.executor].map((ex) => ex.close()));
    },
  };
}
