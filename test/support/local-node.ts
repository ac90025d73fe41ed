/**
 * Test support: the real single-node service in-process (real dynalite, real
 * handlers over HTTP), a web server playing the registered sites, tokens from
 * the local issuer, and a small HTTP client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '#platform/config.ts';
import { startLocalNode, type LocalNode } from '#local/node.ts';
import type { LocalRuntimeOptions } from '#local/adapters.ts';
import { loadIssuerKey, mintIdToken } from '#local/local-issuer.ts';
import { siteChanged } from '#domain/site-lookup.ts';

/** A home page with this service's script loaded from `origin` (the service's own by default: PUBLIC_URL's default). */
export const scriptPage = (origin: string) => `<!doctype html><html><head><script async src="${origin}/latest.js"></script></head><body>hi</body></html>`;
export const PLAIN_PAGE = '<!doctype html><html><head><script src="https://cdn.example.test/widget.js"></script></head><body>hi</body></html>';

export interface Response {
  status: number;
  headers: Headers;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface TestService {
  url: string;
  node: LocalNode;
  dataDir: string;
  /** A home page with the script from this service's own origin. */
  scriptPage: string;
  /** The server playing the sites: `GET /{hostname}/` (or `GET /` with that Host) answers its page. */
  pagesUrl: string;
  /** Serves `html` at the site's home page. */
  setPage(hostname: string, html: string): void;
  /** Answers the site's home page with a 302 to `location`. */
  setRedirect(hostname: string, location: string): void;
  /** Serves `body` at exactly `path` of the page server (e.g. `/{hostname}/latest.js`, a script the page loads), whatever the Host. */
  setFile(path: string, body: string | Buffer, headers?: Record<string, string>): void;
  /** How many requests the page server has had for the site's pages (its home page, icons, scripts). */
  pageFetches(hostname: string): number;
  token(sub: string, ttlSeconds?: number): Promise<string>;
  /** A streamed answer (text/event-stream) is closed once its headers arrive: its text is empty. */
  req(method: string, path: string, options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Response>;
  /** Registers (asserting 201) and, unless verify is false, verifies through POST …/verify (as the operator once that is rate limited). */
  site(token: string, options?: { prefix?: string; kind?: 'web' | 'api'; verify?: boolean }): Promise<string>;
  key(token: string, scopes: string[], label?: string): Promise<{ id: string; key: string }>;
  /** Polls `read` until `ready` holds, writing what the queue holds in between (collected data shows within 2 s locally). */
  until<T>(read: () => Promise<T>, ready: (value: T) => boolean): Promise<T>;
  /** Stops the node and the page server; DATA_DIR is removed unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export const unique = (prefix = 'site') => `${prefix}-${randomBytes(5).toString('hex')}.example`;

type Page = { html: string } | { redirect: string };
type File = { body: string | Buffer; headers: Record<string, string> };

function startPageServer(): Promise<{ server: Server; url: string; pages: Map<string, Page>; files: Map<string, File>; fetches: Map<string, number> }> {
  const pages = new Map<string, Page>();
  const files = new Map<string, File>();
  const fetches = new Map<string, number>();
  const server = createServer((req, res) => {
    // The site is named by the first path segment (VERIFY_URL_TEMPLATE), else by the Host header.
    const name = decodeURIComponent((req.url ?? '/').split('/')[1] ?? '') || (req.headers.host ?? '').replace(/:\d+$/, '');
    fetches.set(name, (fetches.get(name) ?? 0) + 1);
    const file = files.get((req.url ?? '/').split('?')[0] as string);
    if (file) {
      res.writeHead(200, { 'content-type': 'application/javascript', ...file.headers });
      res.end(file.body);
      return;
    }
    const page = pages.get(name);
    if (page && 'redirect' in page) {
      res.writeHead(302, { location: page.redirect });
      res.end();
      return;
    }
    res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html' });
    res.end(page?.html ?? 'no page');
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, pages, files, fetches, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

export async function startTestService(env: Record<string, string> = {}, options: LocalRuntimeOptions = {}): Promise<TestService> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'tt-test-'));
  const pages = await startPageServer();
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    VERIFY_URL_TEMPLATE: `${pages.url}/{hostname}/`,
    VERIFY_ALLOW_PRIVATE_ADDRESSES: '1',
    ...env,
  });
  const node = await startLocalNode(config, options);
  const issuerKey = loadIssuerKey(dataDir);

  const service: TestService = {
    url: node.url,
    node,
    dataDir,
    scriptPage: scriptPage(node.url),
    pagesUrl: pages.url,
    setPage: (hostname, html) => void pages.pages.set(hostname, { html }),
    setRedirect: (hostname, location) => void pages.pages.set(hostname, { redirect: location }),
    setFile: (path, body, headers = {}) => void pages.files.set(path, { body, headers }),
    pageFetches: (hostname) => pages.fetches.get(hostname) ?? 0,
    token: (sub, ttlSeconds) => mintIdToken(issuerKey, sub, { ttlSeconds }),
    async req(method, path, { token, body, raw, headers = {} } = {}) {
      const h: Record<string, string> = { ...headers };
      if (token) h.authorization = `Bearer ${token}`;
      let payload: string | undefined = raw;
      if (body !== undefined) {
        payload = JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const abort = new AbortController();
      const r = await fetch(node.url + path, { method, headers: h, body: payload, signal: abort.signal });
      // A stream (the live stream) has no end to wait for: its status and headers are the answer.
      const streamed = r.headers.get('content-type')?.startsWith('text/event-stream');
      if (streamed) abort.abort();
      const text = streamed ? '' : await r.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: r.status, headers: r.headers, text, json };
    },
    async site(token, { prefix = 'site', kind, verify = true } = {}) {
      const hostname = unique(prefix);
      const r = await service.req('POST', '/api/sites', { token, body: kind ? { hostname, kind } : { hostname } });
      if (r.status !== 201) throw new Error(`registering ${hostname}: ${r.status} ${r.text}`);
      if (verify) {
        service.setPage(hostname, service.scriptPage);
        const v = await service.req('POST', `/api/sites/${hostname}/verify`, { token });
        // Past the account's explicit checks a minute (tests make many sites): as the operator's verify-site.
        if (v.status === 429) siteChanged(node.services, hostname, await node.services.registry.markVerified(hostname, new Date().toISOString()));
        else if (!v.json?.verified_at) throw new Error(`verifying ${hostname}: ${v.status} ${v.text}`);
      }
      return hostname;
    },
    async key(token, scopes, label = 'test') {
      const r = await service.req('POST', '/api/management-keys', { token, body: { label, scopes } });
      if (r.status !== 201) throw new Error(`creating key: ${r.status} ${r.text}`);
      return { id: r.json.id, key: r.json.key };
    },
    async until(read, ready) {
      let value = await read();
      for (let i = 0; i < 100 && !ready(value); i++) {
        await new Promise((r) => setTimeout(r, 100));
        await node.runtime.eventQueue.drain();
        await node.runtime.apiRequestQueue.drain();
        value = await read();
      }
      return value;
    },
    async stop({ keepData = false } = {}) {
      await node.stop();
      await new Promise<void>((ok) => pages.server.close(() => ok()));
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  exited: Promise<unknown>;
  /** SIGKILL to the whole process group (with `npm`, npm and the shell it starts too), as a crash or an OOM kill of the group. */
  killGroup(): void;
}

/**
 * Starts `npm start`'s entry in a process group of its own and resolves with its URL once it
 * listens. `viaNpm`: through `npm start` itself, as an operator runs it.
 */
export function startServerProcess(env: Record<string, string>, { viaNpm = false } = {}): Promise<ServerProcess> {
  const [command, args] = viaNpm ? ['npm', ['start', '--silent']] : [process.execPath, ['--import', 'tsx', 'bin/local.ts']];
  const proc = spawn(command, args, {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = once(proc, 'exit');
  const killGroup = () => {
    try {
      process.kill(-(proc.pid as number), 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  };
  return new Promise((ok, fail) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok({ proc, url: m[1] as string, exited, killGroup });
    });
    void exited.then(([code]) => fail(new Error(`server exited early (${code}): ${out}`)));
  });
}
