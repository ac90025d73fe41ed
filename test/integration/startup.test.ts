/**
 * `npm start` as a self-hoster sees it, in processes of their own: the next
 * steps after `listening on …`, no AWS SDK Node-version warning, one line and a
 * non-zero exit for a data directory or port already in use, and one JSON
 * request line per product request without credentials.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SDK_WARNING = 'NodeVersionSupportWarning';

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const dirs: string[] = [];
const newDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tt-startup-'));
  dirs.push(dir);
  return dir;
};

/** bin/local.ts with the environment a user has: no SDK warning switch of ours, the local issuer. */
function spawnServer(dataDir: string, port: number | string, env: Record<string, string> = {}): Started {
  const base = { ...process.env };
  delete base.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  delete base.LOG_LEVEL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    env: { ...base, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_ISSUER: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function until(what: string, ready: () => boolean, server: Started): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!ready()) {
    if (Date.now() > deadline || server.child.exitCode !== null) throw new Error(`${what}: ${server.stdout()} ${server.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let server: Started;
let url: string;
let dataDir: string;
beforeAll(async () => {
  dataDir = newDataDir();
  server = spawnServer(dataDir, 0);
  await until('server did not come up', () => /listening on http:\/\/\S+\n/.test(server.stdout()), server);
  url = /listening on (http:\/\/\S+)/.exec(server.stdout())![1] as string;
});
afterAll(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const requestLines = () =>
  server
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'request');

describe('npm start', () => {
  it('prints the next steps after listening: token command, API document, data directory, identity mode', () => {
    const lines = server.stdout().split('\n');
    const at = lines.findIndex((l) => l.startsWith('tinytrack listening on '));
    const after = lines.slice(at + 1, at + 8).join('\n');
    expect(after).toContain('identity:      local issuer (AUTH_ISSUER unset');
    expect(after).toContain(`dashboard:     ${url}/  (sign in with a link: DATA_DIR=${dataDir} npm run admin -- login-link <user id>)`);
    expect(after).toContain('npm run --silent token -- <user id>');
    expect(after).toContain(`API document:  ${url}/api/openapi.json`);
    expect(after).toContain(`data:          ${dataDir}`);
  });

  it('prints no AWS SDK Node-version warning, on start or from npm run admin', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, AUTH_ISSUER: '' };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const admin = await run('npm', ['run', '--silent', 'admin', '--', 'verify-site', 'nobody.example'], { env }).catch((e: { stderr: string; code: number }) => e);
    expect(admin.stderr.trim()).toBe('unknown site: nobody.example');
    expect(server.stderr()).not.toContain(SDK_WARNING);
  });

  it('keeps other process warnings while silencing the SDK one', async () => {
    const script = [
      "await import('#local/quiet-aws-sdk.ts');",
      "const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');",
      "new DynamoDBClient({ region: 'local' }).destroy();",
      "process.emitWarning('another warning');",
    ].join('\n');
    const env = { ...process.env };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const { stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env });
    expect(stderr).toContain('Warning: another warning');
    expect(stderr).not.toContain(SDK_WARNING);
  });

  it('ends a second start on the same DATA_DIR with one line on stderr and exit 1', async () => {
    const second = spawnServer(dataDir, 0);
    expect(await second.exited).toBe(1);
    expect(second.stderr().trim().split('\n')).toEqual([`tinytrack: DATA_DIR ${dataDir} is in use by another tinytrack server: stop it, or set DATA_DIR to another directory`]);
    expect(second.stdout()).not.toContain('listening on');
  });

  it('ends a start on a port in use with one line on stderr and exit 1', async () => {
    const port = new URL(url).port;
    const other = spawnServer(newDataDir(), port);
    expect(await other.exited).toBe(1);
    expect(other.stderr().trim().split('\n')).toEqual([`tinytrack: port ${port} on 127.0.0.1 is already in use: stop what listens there, or set PORT`]);
  });

  it('logs one JSON line per product request with method, route template, status and ms, and never a token, key or query', async () => {
    const token = (await run('npm', ['run', '--silent', 'token', '--', 'logger'], { env: { ...process.env, DATA_DIR: dataDir, AUTH_ISSUER: '' } })).stdout.trim();
    const before = requestLines().length;
    const created = await fetch(`${url}/api/management-keys`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ scopes: ['read'] }) });
    const { key } = (await created.json()) as { key: string };
    await fetch(`${url}/api/sites`, { headers: { authorization: `Bearer ${key}` } });
    await fetch(`${url}/api/sites/some-site.example/overview?from=1&to=2&filter=page:%2Fsecret-path`, { headers: { authorization: `Bearer ${token}` } });
    await fetch(`${url}/api/nowhere?api_key=hidden-value`);
    // Beacons are debug lines: none at the default level.
    await fetch(`${url}/events`, { method: 'POST', body: JSON.stringify({ hostname: 'some-site.example', path: '/' }) });
    await until('request lines', () => requestLines().length >= before + 4, server);
    await new Promise((r) => setTimeout(r, 300));

    const lines = requestLines().slice(before);
    expect(lines.map(({ level, method, route, status }) => ({ level, method, route, status }))).toEqual([
      { level: 'info', method: 'POST', route: '/api/management-keys', status: 201 },
      { level: 'info', method: 'GET', route: '/api/sites', status: 200 },
      { level: 'info', method: 'GET', route: '/api/sites/{hostname}/overview', status: 404 },
      { level: 'info', method: 'GET', route: null, status: 404 },
    ]);
    for (const line of lines) expect(line.ms).toEqual(expect.any(Number));
    const output = server.stdout() + server.stderr();
    for (const secret of [token, key, 'secret-path', 'hidden-value', 'some-site.example']) expect(output).not.toContain(secret);
  });
});
