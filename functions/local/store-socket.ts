/**
 * The local registry store's only door (DESIGN.md §7: no listener without
 * authentication). dynalite checks only the format of a request signature and
 * answers any Origin, so it never listens on TCP: its request listener sits
 * behind a unix socket in the owner-only DATA_DIR, and every request must carry
 * a secret drawn at each start and kept in a 0600 file there. `npm run admin`
 * reads both from DATA_DIR to reach a running server's store.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { OWNER_FILE } from './data-dir.ts';

export const STORE_SECRET_HEADER = 'x-tinytrack-store-secret';
/** The Host every store request names: the socket has no host of its own, so any other is foreign. */
export const STORE_HOST = 'tinytrack-store';
/** sun_path holds 108 bytes on Linux and 104 on macOS, the closing NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;

/** Where a running store listens and the secret it wants; kept in DATA_DIR (0600). */
export interface StoreAddress {
  socket: string;
  secret: string;
}

const storeAddressFile = (dataDir: string): string => join(dataDir, 'store-socket.json');

export function readStoreAddress(dataDir: string): StoreAddress | null {
  try {
    const parsed = JSON.parse(readFileSync(storeAddressFile(dataDir), 'utf8')) as Partial<StoreAddress>;
    return typeof parsed.socket === 'string' && typeof parsed.secret === 'string' ? { socket: parsed.socket, secret: parsed.secret } : null;
  } catch {
    return null;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A store request passes with the secret, our Host and no Origin (a browser's request never reaches the store). */
function storeRequestAllowed(headers: IncomingHttpHeaders, secret: string): boolean {
  const given = headers[STORE_SECRET_HEADER];
  if (headers.origin !== undefined || headers.host !== STORE_HOST || typeof given !== 'string') return false;
  // Equal-length digests: the comparison takes the same time whatever the guess.
  return timingSafeEqual(digest(given), digest(secret));
}

/**
 * The running server's notices, on the same door: `npm run admin` changed a site behind the
 * server's caches (verify-site), and the server re-reads it at once instead of within its TTL.
 */
export const SITE_CHANGED_PATH = '/tinytrack/site-changed';
/** A hostname is at most 253 characters; anything longer is not one. */
const MAX_NOTICE_BYTES = 1024;

export type SiteChangedListener = (hostname: string) => Promise<void>;

/** Reads a notice's body (a hostname) and answers once the server has taken it in. */
function siteChangedNotice(req: IncomingMessage, res: ServerResponse, listeners: readonly SiteChangedListener[]): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= MAX_NOTICE_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    const hostname = Buffer.concat(chunks).toString('utf8');
    if (bytes > MAX_NOTICE_BYTES || hostname === '') {
      res.writeHead(400).end();
      return;
    }
    Promise.all(listeners.map((listener) => listener(hostname))).then(
      () => res.writeHead(204).end(),
      () => res.writeHead(500).end(),
    );
  });
}

/** `listener` behind the check: a refused request is answered 403 here and never forwarded. */
function guardStore(listener: RequestListener, secret: string, notices: readonly SiteChangedListener[]): RequestListener {
  return (req, res) => {
    if (storeRequestAllowed(req.headers, secret)) {
      if (req.method === 'POST' && req.url === SITE_CHANGED_PATH) return siteChangedNotice(req, res, notices);
      return listener(req, res);
    }
    req.resume();
    res.writeHead(403, { 'content-type': 'application/x-amz-json-1.0', connection: 'close' });
    res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException', message: 'store request refused' }));
  };
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((ok) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      ok(true);
    });
    s.once('error', () => ok(false));
  });
}

const TMP_PREFIX = 'tinytrack-store-';

/** Unlinks a socket, and the directory made for it under the temp dir (only that one, only when empty). */
function removeSocket(path: string, dataDir: string): void {
  rmSync(path, { force: true });
  const dir = dirname(path);
  if (dir === dataDir || !basename(dir).startsWith(TMP_PREFIX)) return;
  try {
    rmdirSync(dir);
  } catch {
    // Already gone, or not ours to empty.
  }
}

/** Removes the socket a crashed start left behind; refuses while one still answers. */
async function clearSocket(path: string, dataDir: string): Promise<void> {
  if (!existsSync(path)) return;
  if (await socketAnswers(path)) throw new Error(`a tinytrack store already runs on ${dataDir}`);
  removeSocket(path, dataDir);
}

/** In DATA_DIR, or when that path is too long for a socket, in a fresh 0700 directory under the temp dir. */
const socketInDataDir = (dataDir: string) => join(dataDir, 'store.sock');

function socketPath(dataDir: string): string {
  const inDataDir = socketInDataDir(dataDir);
  if (Buffer.byteLength(inDataDir) <= MAX_SOCKET_PATH_BYTES) return inDataDir;
  return join(mkdtempSync(join(tmpdir(), TMP_PREFIX)), 'store.sock');
}

export interface StoreDoor {
  address: StoreAddress;
  /** Called for each site-changed notice (`notifySiteChanged`); the notice is answered once every listener is done. */
  onSiteChanged(listener: SiteChangedListener): void;
  /** Unlinks the socket and forgets the address, so no new client finds the store; call before closing the server. */
  remove(): void;
}

/**
 * Puts the guard in front of `server`'s request listener (dynalite's, not yet
 * listening), listens on a unix socket with a fresh secret, and records both in
 * DATA_DIR (`dataDir` absolute, already owner-only).
 */
export async function openStoreDoor(server: Server, dataDir: string): Promise<StoreDoor> {
  const previous = readStoreAddress(dataDir);
  if (previous) await clearSocket(previous.socket, dataDir);
  await clearSocket(socketInDataDir(dataDir), dataDir);

  const secret = randomBytes(32).toString('base64url');
  const notices: SiteChangedListener[] = [];
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  for (const listener of listeners) server.on('request', guardStore(listener, secret, notices));

  const socket = socketPath(dataDir);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(socket, () => ok());
  });
  chmodSync(socket, OWNER_FILE);
  const address: StoreAddress = { socket, secret };
  const file = storeAddressFile(dataDir);
  rmSync(file, { force: true });
  writeFileSync(file, JSON.stringify(address), { flag: 'wx', mode: OWNER_FILE });
  return {
    address,
    onSiteChanged: (listener) => notices.push(listener),
    remove: () => {
      rmSync(file, { force: true });
      removeSocket(socket, dataDir);
    },
  };
}

/** A DynamoDB client that reaches the store through its socket, the secret on every request. */
export function storeClient(address: StoreAddress): DynamoDBClient {
  const agent = new Agent({ keepAlive: true });
  agent.createConnection = () => connect(address.socket);
  const client = new DynamoDBClient({
    endpoint: `http://${STORE_HOST}`,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
    requestHandler: { httpAgent: agent },
  });
  client.middlewareStack.add(
    (next) => (args) => {
      (args.request as { headers: Record<string, string> }).headers[STORE_SECRET_HEADER] = address.secret;
      return next(args);
    },
    { step: 'build', name: 'tinytrackStoreSecret' },
  );
  return client;
}

/** Tells the server behind `address` that `hostname` changed in its store; resolves once it has re-read it. */
export function notifySiteChanged(address: StoreAddress, hostname: string): Promise<void> {
  return new Promise((ok, fail) => {
    const req = request(
      { socketPath: address.socket, method: 'POST', path: SITE_CHANGED_PATH, headers: { host: STORE_HOST, [STORE_SECRET_HEADER]: address.secret } },
      (res) => {
        res.resume();
        if (res.statusCode === 204) ok();
        else fail(new Error(`the server did not take the notice (${res.statusCode})`));
      },
    );
    req.on('error', fail);
    req.end(hostname);
  });
}
