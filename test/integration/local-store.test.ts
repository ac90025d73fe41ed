/**
 * The local registry store's door (DESIGN.md §7): dynalite only behind an
 * owner-only unix socket that wants a per-start secret, no TCP listener, and a
 * DATA_DIR that is owner-only throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadConfig } from '#platform/config.ts';
import { openLocalStore, startLocalStore } from '#local/adapters.ts';
import { readStoreAddress, STORE_HOST, STORE_SECRET_HEADER, type StoreAddress } from '#local/store-socket.ts';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { startTestService, type TestService } from '../support/local-node.ts';

/** A Scan in dynalite's wire format with a well-formed but made-up signature: the attack of an outside review. */
const scanHeaders = {
  'content-type': 'application/x-amz-json-1.0',
  'x-amz-target': 'DynamoDB_20120810.Scan',
  'x-amz-date': '20240101T000000Z',
  authorization: 'AWS4-HMAC-SHA256 Credential=x/20240101/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00',
};
const scanBody = JSON.stringify({ TableName: 'tinytrack' });

interface Answer {
  status: number;
  body: string;
}

function send(target: { socketPath: string } | { port: number; host: string }, headers: Record<string, string>): Promise<Answer> {
  return new Promise((ok, fail) => {
    const req = request({ ...target, method: 'POST', path: '/', headers: { ...scanHeaders, ...headers, 'content-length': String(Buffer.byteLength(scanBody)) } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end(scanBody);
  });
}

const toSocket = (address: StoreAddress, headers: Record<string, string>) => send({ socketPath: address.socket }, headers);

/** TCP ports this process listens on (Linux: its socket inodes matched against /proc/net/tcp{,6} in state LISTEN). */
function ownListeningPorts(): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) inodes.add(m[1] as string);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9] as string)) ports.push(parseInt((cols[1] as string).split(':')[1] as string, 16));
    }
  }
  return ports;
}

/** Every entry under `dir` with its permission bits, `dir` itself first. */
function modes(dir: string): { path: string; mode: number; kind: string }[] {
  const out = [{ path: dir, mode: statSync(dir).mode & 0o777, kind: 'dir' }];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out.push({ path, mode: lstatSync(path).mode & 0o777, kind: entry.isDirectory() ? 'dir' : 'file' });
  }
  return out;
}

let svc: TestService;
let address: StoreAddress;
let parent: string;

beforeAll(async () => {
  // A DATA_DIR someone made world-readable before the first start.
  parent = mkdtempSync(join(tmpdir(), 'tt-store-'));
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  svc = await startTestService({ DATA_DIR: dataDir });
  address = readStoreAddress(dataDir) as StoreAddress;
  // A management key whose hash a leaking store would show.
  await svc.key(await svc.token('store-owner'), ['read']);
});

afterAll(async () => {
  await svc?.stop();
  rmSync(parent, { recursive: true, force: true });
});

describe('the local registry store', () => {
  it('listens on no TCP port: no port file, and no port of this process answers a DynamoDB Scan', async () => {
    expect(existsSync(join(svc.dataDir, 'dynalite.port'))).toBe(false);
    const ports = ownListeningPorts();
    expect(ports).toContain(Number(new URL(svc.url).port));
    for (const port of ports) {
      const answer = await send({ host: '127.0.0.1', port }, {}).catch(() => ({ status: 0, body: '' }));
      expect(answer.body).not.toContain('MKEY#');
    }
  });

  it('answers on its socket with the secret, our Host and no Origin', async () => {
    const answer = await toSocket(address, { host: STORE_HOST, [STORE_SECRET_HEADER]: address.secret });
    expect([answer.status, answer.body]).toEqual([200, expect.stringContaining('MKEY#')]);
  });

  it('refuses (403, nothing read) a request on its socket without the secret or with a wrong one', async () => {
    const attempts: Record<string, string>[] = [{ host: STORE_HOST }, { host: STORE_HOST, [STORE_SECRET_HEADER]: 'guess' }, { host: STORE_HOST, [STORE_SECRET_HEADER]: '' }];
    for (const headers of attempts) {
      const answer = await toSocket(address, headers);
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('MKEY#');
    }
  });

  it('refuses (403) a request with the secret that carries an Origin header, or a foreign Host', async () => {
    const attempts: Record<string, string>[] = [
      { host: STORE_HOST, origin: 'https://evil.example' },
      { host: STORE_HOST, origin: 'null' },
      { host: 'evil.example' },
      { host: '127.0.0.1' },
    ];
    for (const headers of attempts) {
      const answer = await toSocket(address, { ...headers, [STORE_SECRET_HEADER]: address.secret });
      expect([answer.status, answer.body.includes('MKEY#')]).toEqual([403, false]);
    }
  });

  it('lets the operator CLI’s store (openLocalStore) reach the running server’s registry', async () => {
    const token = await svc.token('store-admin');
    const hostname = await svc.site(token, { verify: false });
    const config = loadConfig({ DATA_DIR: svc.dataDir });
    const store = await openLocalStore(config);
    try {
      expect(await new DynamoRegistry(store.client, config.tableName).markVerified(hostname, '2024-01-02T03:04:05.000Z')).toMatchObject({ hostname });
    } finally {
      await store.close();
    }
    expect((await svc.req('GET', `/api/sites/${hostname}`, { token })).json.verified_at).toBe('2024-01-02T03:04:05.000Z');
    // The running server's socket is still there for the next CLI run.
    expect(readStoreAddress(svc.dataDir)).toEqual(address);
  });

  it('refuses a second store on a DATA_DIR whose store runs', async () => {
    await expect(startLocalStore(loadConfig({ DATA_DIR: svc.dataDir }))).rejects.toThrow(/already runs/);
    expect(readStoreAddress(svc.dataDir)).toEqual(address);
  });

  it('keeps DATA_DIR owner-only: a looser existing one tightened to 0700, every folder 0700, every file and the socket 0600', async () => {
    const entries = modes(svc.dataDir);
    expect(entries.map((e) => e.path)).toEqual(
      expect.arrayContaining([svc.dataDir, join(svc.dataDir, 'events.duckdb'), join(svc.dataDir, 'secret-box.key'), join(svc.dataDir, 'issuer', 'issuer-key.json'), join(svc.dataDir, 'dynamodb'), address.socket]),
    );
    expect(entries.filter((e) => e.mode !== (e.kind === 'dir' ? 0o700 : 0o600))).toEqual([]);
  });
});

describe('a DATA_DIR too deep for a socket path', () => {
  it('puts the socket in an owner-only folder under the temp dir, records it, and removes it on close', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tt-deep-'));
    const dataDir = join(root, 'a-rather-long-folder-name-to-pass-the-socket-limit'.repeat(3));
    try {
      const config = loadConfig({ DATA_DIR: dataDir });
      const store = await startLocalStore(config);
      const recorded = readStoreAddress(dataDir) as StoreAddress;
      expect(recorded.socket.startsWith(tmpdir())).toBe(true);
      expect(statSync(dirname(recorded.socket)).mode & 0o777).toBe(0o700);
      const cli = await openLocalStore(config);
      expect(await new DynamoRegistry(cli.client, config.tableName).getSite('deep.example')).toBeNull();
      await cli.close();
      expect((await toSocket(recorded, { host: STORE_HOST })).status).toBe(403);
      await store.close();
      expect([existsSync(dirname(recorded.socket)), readStoreAddress(dataDir)]).toEqual([false, null]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
