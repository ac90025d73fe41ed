/**
 * The local contract of DESIGN.md §3, as outside tools use it: `npm start`,
 * `npm run token`, `npm run admin`, a clean stop on SIGTERM, state kept in
 * DATA_DIR across restarts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'tt-contract-'));

function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

async function start(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('npm', ['start'], { env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_ISSUER: '' }, detached: true });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 60_000;
  while (!out.includes(`listening on http://127.0.0.1:${port}`)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => out };
}

/** SIGTERM to the whole process group, as a supervisor would; resolves with the output once npm is gone. */
function stop(server: { child: ChildProcess; output: () => string }): Promise<string> {
  return new Promise((ok) => {
    server.child.once('exit', () => setTimeout(() => ok(server.output()), 200));
    process.kill(-server.child.pid!, 'SIGTERM');
  });
}

const env = { ...process.env, DATA_DIR: dataDir, AUTH_ISSUER: '' };
const npm = (...args: string[]) => run('npm', ['run', '--silent', ...args], { env });

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('npm start', () => {
  it('serves, mints tokens, verifies by CLI, stops cleanly and keeps its state, every beacon answered before the stop included', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await start(port);
    expect((await (await fetch(`${base}/healthz`)).text())).toBe('ok');

    const token = (await npm('token', '--', 'cli-user', '--email', 'u@example.com')).stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const expired = (await npm('token', '--', 'cli-user', '--ttl', '-30')).stdout.trim();
    const auth = (t: string) => ({ authorization: `Bearer ${t}` });

    const created = await fetch(`${base}/api/sites`, { method: 'POST', headers: auth(token), body: JSON.stringify({ hostname: 'contract.example' }) });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/api/sites`, { headers: auth(expired) })).status).toBe(401);

    const admin = await npm('admin', '--', 'verify-site', 'contract.example');
    expect(admin.stdout).toContain('contract.example');
    const site = (await (await fetch(`${base}/api/sites/contract.example`, { headers: auth(token) })).json()) as { verified_at: string };
    expect(site.verified_at).toMatch(/^\d{4}-/);
    await expect(npm('admin', '--', 'verify-site', 'unknown.example')).rejects.toMatchObject({ code: 1 });

    // Beacons answered just before the stop are stored by the stop, not lost with it.
    const beacon = () => fetch(`${base}/events`, { method: 'POST', body: JSON.stringify({ hostname: 'contract.example', path: '/kept', ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0' }) });
    const answers = await Promise.all(Array.from({ length: 40 }, beacon));
    const answered = answers.filter((r) => r.ok).length;
    expect(answered).toBe(40);
    expect(await stop(first)).toContain('tinytrack stopped');

    // Same DATA_DIR: the registration and the issuer key survive a restart; the admin CLI works offline too.
    await npm('admin', '--', 'verify-site', 'contract.example');
    const second = await start(port);
    const again = await fetch(`${base}/api/sites/contract.example`, { headers: auth(token) });
    expect(again.status).toBe(200);
    const overview = await fetch(`${base}/api/sites/contract.example/overview?from=${Math.floor(Date.now() / 1000) - 3600}`, { headers: auth(token) });
    expect(((await overview.json()) as { totals: { pageviews: number } }).totals.pageviews).toBe(answered);
    expect(await stop(second)).toContain('tinytrack stopped');
  }, 120_000);
});

describe('npm start with a half-configured identity provider', () => {
  it('refuses to start with AUTH_ISSUER but no AUTH_AUDIENCE, saying so in one line', async () => {
    const started = run('node', ['--import', 'tsx', 'bin/local.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: dataDir, AUTH_ISSUER: 'https://id.example.com/', AUTH_AUDIENCE: '' },
      timeout: 30_000,
    });
    await expect(started).rejects.toMatchObject({ code: 1, stdout: '', stderr: 'tinytrack: invalid configuration: AUTH_ISSUER needs AUTH_AUDIENCE (the client id its ID tokens are issued to)\n' });
  }, 60_000);
});
