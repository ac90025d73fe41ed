/**
 * A rotated ClickHouse secret takes effect without a redeploy: the AWS
 * functions' store (functions/aws/event-store.ts) re-reads the
 * secret once when the server refuses its credentials and runs the
 * statement again. Against a stand-in of ClickHouse's HTTP interface that
 * answers as a server does (a 516 AUTHENTICATION_FAILED for a wrong
 * password), through the real @clickhouse/client; Secrets Manager mocked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLICKHOUSE_FAILURE_LOG, isAuthenticationFailure, refreshingExecutor } from '#adapters/clickhouse/refreshing-executor.ts';
import { clickHouseStore } from '#aws/event-store.ts';
import { loadConfig } from '#platform/config.ts';
import { log } from '#platform/log.ts';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:tinytrack-reader-AbCdEf';
const secrets = mockClient(SecretsManagerClient);

/** The password the stand-in accepts now (the operator rotates it). */
let password = 'first';
/** What the stand-in answers an authenticated statement: a row, or a server error. */
let answer: { status: number; body: string } = { status: 200, body: '{"n":1}\n' };
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers.authorization !== `Basic ${Buffer.from(`reports:${password}`).toString('base64')}`) {
        res.writeHead(401, { 'x-clickhouse-exception-code': '516' });
        res.end('Code: 516. DB::Exception: reports: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED) (version 25.6.1.1)\n');
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/x-ndjson', 'x-clickhouse-summary': '{}' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

let logged: string[];
beforeEach(() => {
  password = 'first';
  answer = { status: 200, body: '{"n":1}\n' };
  secrets.reset();
  logged = [];
  vi.spyOn(console, 'error').mockImplementation((line: string) => void logged.push(line));
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

/** The secret answers each read with the next of `passwords` (the last one from then on). */
function secretReads(...passwords: string[]): () => number {
  let reads = 0;
  secrets.on(GetSecretValueCommand, { SecretId: ARN }).callsFake(() => {
    const next = passwords[Math.min(reads, passwords.length - 1)];
    reads++;
    return { SecretString: JSON.stringify({ username: 'reports', password: next }) };
  });
  return () => reads;
}

/** The reports reader's store as the Lambda entry builds it. */
const reader = () =>
  clickHouseStore(loadConfig({ CLICKHOUSE_URL: url, CLICKHOUSE_SECRET_ARN: ARN, CLICKHOUSE_DATABASE: 'tinytrack' }), {
    migrate: false,
    secrets: new SecretsManagerClient({}),
  }).then((store) => store!);

describe('ClickHouse credentials on AWS', () => {
  it('re-reads the secret once when the server refuses the password, and runs the statement again with the rotated one', async () => {
    const reads = secretReads('first', 'second');
    const store = await reader();
    expect(await store.executor.query('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    // The operator rotates the password: ClickHouse takes the new one, the secret holds it.
    password = 'second';
    expect(await store.executor.query('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    expect(await store.executor.query('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    await store.close();
    expect(reads()).toBe(2);
    expect(logged.filter((l) => l.includes(CLICKHOUSE_FAILURE_LOG))).toEqual([]);
  });

  it('fails with the server’s refusal when the secret still holds the refused password, reading it again at most once per interval', async () => {
    const reads = secretReads('first');
    const store = await reader();
    password = 'rotated-in-clickhouse-only';
    await expect(store.executor.query('SELECT 1 AS n')).rejects.toSatisfy(isAuthenticationFailure);
    await expect(store.executor.query('SELECT 1 AS n')).rejects.toSatisfy(isAuthenticationFailure);
    await store.close();
    // One read at start, one re-read; the second refusal within 10 s reads nothing.
    expect(reads()).toBe(2);
    const failures = logged.filter((l) => l.includes(CLICKHOUSE_FAILURE_LOG)).map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, unknown>);
    expect(failures.map((f) => [f.operation, f.code, f.type])).toEqual([
      ['query', '516', 'AUTHENTICATION_FAILED'],
      ['query', '516', 'AUTHENTICATION_FAILED'],
    ]);
  });

  it('shares one re-read among statements refused at once', async () => {
    const reads = secretReads('first', 'second');
    const store = await reader();
    password = 'second';
    const answers = await Promise.all([1, 2, 3, 4].map(() => store.executor.query('SELECT 1 AS n')));
    await store.close();
    expect(answers).toEqual([[{ n: 1 }], [{ n: 1 }], [{ n: 1 }], [{ n: 1 }]]);
    expect(reads()).toBe(2);
  });

  it('reads nothing again for any other server error, and logs its code and type but never its message', async () => {
    const reads = secretReads('first');
    const store = await reader();
    answer = { status: 500, body: "Code: 27. DB::Exception: Cannot parse input: expected '\"' before: '/private-page?email=someone@example.com': (CANNOT_PARSE_INPUT_ASSERTION_FAILED) (version 25.6.1.1)\n" };
    await expect(store.executor.command('INSERT INTO t VALUES')).rejects.toThrow(/Cannot parse input/);
    await store.close();
    expect(reads()).toBe(1);
    const failures = logged.filter((l) => l.includes(CLICKHOUSE_FAILURE_LOG));
    expect(failures).toHaveLength(1);
    expect(JSON.parse(failures[0]!.slice(failures[0]!.indexOf('{')))).toMatchObject({ operation: 'command', code: '27', type: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED' });
    expect(failures[0]).not.toMatch(/private-page|someone@example\.com/);
  });
});

describe('isAuthenticationFailure', () => {
  it('knows ClickHouse’s refusals of a user or password, parsed or as text, and nothing else', () => {
    expect(isAuthenticationFailure({ code: '516', type: 'AUTHENTICATION_FAILED' })).toBe(true);
    expect(isAuthenticationFailure({ code: '194', type: 'REQUIRED_PASSWORD' })).toBe(true);
    expect(isAuthenticationFailure(new Error('Code: 516. DB::Exception: Authentication failed'))).toBe(true);
    expect(isAuthenticationFailure({ code: '60', type: 'UNKNOWN_TABLE' })).toBe(false);
    expect(isAuthenticationFailure(new Error('connect ECONNREFUSED'))).toBe(false);
    expect(isAuthenticationFailure(undefined)).toBe(false);
  });

  it('closes the executors of replaced credentials with the refreshed one', async () => {
    const closed: string[] = [];
    let refuse = true;
    const executor = refreshingExecutor({
      log,
      initial: { user: 'u', password: 'a' },
      read: async () => ({ user: 'u', password: 'b' }),
      connect: (c) => ({
        query: async <T>() => {
          if (c.password === 'a' && refuse) throw Object.assign(new Error('refused'), { code: '516', type: 'AUTHENTICATION_FAILED' });
          return [] as T[];
        },
        command: async () => {},
        insert: async () => {},
        close: async () => void closed.push(c.password),
      }),
    });
    await executor.query('SELECT 1');
    refuse = false;
    await executor.close();
    expect(closed.sort()).toEqual(['a', 'b']);
  });
});
