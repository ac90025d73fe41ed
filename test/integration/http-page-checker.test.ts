/** HttpPageChecker against real local HTTP servers: limits, redirects and the SSRF guard. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpPageChecker, USER_AGENT } from '#adapters/http-page-checker/http-page-checker.ts';
import type { HttpPageCheckerOptions } from '#adapters/http-page-checker/http-page-checker.ts';
import type { PageCheck } from '#ports/page-checker.ts';

const TOKEN = 'tt_verify_8c1d2e';
const SCRIPT_PAGE = '<html><head><script async src="https://cdn.tinytrack.example/latest.js?v=1"></script></head><body>hi</body></html>';
const TOKEN_PAGE = `<html><head><meta name="tinytrack-verify" content="${TOKEN}"></head><body>hi</body></html>`;
const PLAIN_PAGE = '<html><head><script src="/app.js"></script></head><body>nothing here</body></html>';

interface Hit {
  path: string;
  host: string | undefined;
  userAgent: string | undefined;
}

let server: http.Server;
let port: number;
let hits: Hit[] = [];
let bigClosed: Promise<void> = Promise.resolve();

function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = req.url ?? '/';
  hits.push({ path, host: req.headers.host, userAgent: req.headers['user-agent'] });
  const html = (status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  };
  const redirect = /^\/r(\d+)$/.exec(path);
  if (redirect) {
    const n = Number(redirect[1]);
    if (n === 0) return html(200, SCRIPT_PAGE);
    // Alternate relative and absolute locations and redirect kinds.
    const location = n % 2 ? `/r${n - 1}` : `http://127.0.0.1:${port}/r${n - 1}`;
    res.writeHead(n % 2 ? 302 : 301, { location });
    return res.end();
  }
  switch (path) {
    case '/script':
      return html(200, SCRIPT_PAGE);
    case '/token':
      return html(200, TOKEN_PAGE);
    case '/plain':
      return html(200, PLAIN_PAGE);
    case '/empty':
      res.writeHead(204);
      return res.end();
    case '/error':
      return html(500, SCRIPT_PAGE);
    case '/no-location':
      res.writeHead(302);
      return res.end();
    case '/to-ftp':
      res.writeHead(302, { location: 'ftp://127.0.0.1/latest.js' });
      return res.end();
    case '/to-other-host':
      res.writeHead(307, { location: `http://other.test:${port}/token` });
      return res.end();
    case '/hang':
      // Never answers: only the checker's deadline ends this.
      return;
    case '/drip':
      // Headers and the start of the body, then silence.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><script src="/latest.js"></script>');
      return;
    case '/cut':
      // The token only appears past the first 1000 bytes.
      return html(200, `<script src="/latest.js"></script>${'x'.repeat(2000)}${TOKEN}`);
    case '/endless': {
      // Streams forever; the checker must stop reading and hang up.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(`<script src="/latest.js"></script>`);
      const chunk = `<p>${'y'.repeat(16 * 1024)}</p>`;
      bigClosed = new Promise((resolve) => res.on('close', () => resolve()));
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      return pump();
    }
    default:
      return html(404, 'not found');
  }
}

beforeAll(async () => {
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  hits = [];
});

/** A checker whose {hostname} is the local server's path, so each case picks its page by name. */
const local = (overrides: Partial<HttpPageCheckerOptions> = {}) =>
  new HttpPageChecker({ urlTemplate: `http://127.0.0.1:${port}/{hostname}`, allowPrivateAddresses: true, ...overrides });

/** An injectable resolver that records the names it was asked for. */
function fakeDns(table: Record<string, string[]>) {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { asked, lookup };
}

const notFound = (error: string | RegExp): PageCheck =>
  ({ reachable: false, scriptFound: false, tokenFound: false, error: typeof error === 'string' ? error : expect.stringMatching(error) }) as PageCheck;

describe('HttpPageChecker pages', () => {
  it('finds the tracking script', async () => {
    expect(await local().checkPage('script', TOKEN)).toEqual({ reachable: true, scriptFound: true, tokenFound: false });
    expect(hits).toEqual([{ path: '/script', host: `127.0.0.1:${port}`, userAgent: USER_AGENT }]);
    expect(USER_AGENT).toMatch(/^tinytrack-verifier\/1\.0/);
  });

  it('finds the verify token', async () => {
    expect(await local().checkPage('token', TOKEN)).toEqual({ reachable: true, scriptFound: false, tokenFound: true });
  });

  it('finds neither on a plain page, and no token when the site has none', async () => {
    expect(await local().checkPage('plain', TOKEN)).toEqual({ reachable: true, scriptFound: false, tokenFound: false });
    expect(await local().checkPage('token', '')).toEqual({ reachable: true, scriptFound: false, tokenFound: false });
    expect(await local().checkPage('empty', TOKEN)).toEqual({ reachable: true, scriptFound: false, tokenFound: false });
  });

  it('reports non-2xx answers as unreachable without scanning them', async () => {
    expect(await local().checkPage('missing', TOKEN)).toEqual(notFound('HTTP 404'));
    expect(await local().checkPage('error', TOKEN)).toEqual(notFound('HTTP 500'));
    expect(await local().checkPage('no-location', TOKEN)).toEqual(notFound('HTTP 302'));
  });

  it('reports a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const checker = new HttpPageChecker({ urlTemplate: `http://127.0.0.1:${deadPort}/`, allowPrivateAddresses: true });
    expect(await checker.checkPage('x.example', TOKEN)).toEqual(notFound('network error (ECONNREFUSED)'));
  });

  it('refuses hostnames that would change the URL structure', async () => {
    for (const bad of ['', 'a/b', 'evil.example@127.0.0.1', 'a?b', 'a#b', 'a b']) {
      expect(await local().checkPage(bad, TOKEN), bad).toEqual(notFound('invalid hostname'));
    }
    expect(hits).toEqual([]);
  });
});

describe('HttpPageChecker redirects', () => {
  it('follows a chain of 3 redirects', async () => {
    expect(await local().checkPage('r3', TOKEN)).toEqual({ reachable: true, scriptFound: true, tokenFound: false });
    expect(hits.map((h) => h.path)).toEqual(['/r3', '/r2', '/r1', '/r0']);
  });

  it('refuses a 4th redirect without following it', async () => {
    expect(await local().checkPage('r4', TOKEN)).toEqual(notFound('too many redirects'));
    expect(hits.map((h) => h.path)).toEqual(['/r4', '/r3', '/r2', '/r1']);
  });

  it('honours a smaller redirect budget', async () => {
    expect(await local({ maxRedirects: 0 }).checkPage('r1', TOKEN)).toEqual(notFound('too many redirects'));
  });

  it('refuses redirects to non-HTTP schemes', async () => {
    expect(await local().checkPage('to-ftp', TOKEN)).toEqual(notFound('unsupported protocol ftp:'));
  });

  it('resolves each hop again and connects to the resolved address', async () => {
    const dns = fakeDns({ 'other.test': ['127.0.0.1'] });
    expect(await local({ lookup: dns.lookup }).checkPage('to-other-host', TOKEN)).toEqual({ reachable: true, scriptFound: false, tokenFound: true });
    expect(dns.asked).toEqual(['other.test']);
    expect(hits.map((h) => [h.path, h.host])).toEqual([
      ['/to-other-host', `127.0.0.1:${port}`],
      ['/token', `other.test:${port}`],
    ]);
  });
});

describe('HttpPageChecker limits', () => {
  it('gives up on a server that never answers', async () => {
    const started = Date.now();
    expect(await local({ timeoutMs: 300 }).checkPage('hang', TOKEN)).toEqual(notFound('timed out after 300 ms'));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('counts the body against the same deadline', async () => {
    const started = Date.now();
    expect(await local({ timeoutMs: 300 }).checkPage('drip', TOKEN)).toEqual(notFound('timed out after 300 ms'));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('counts DNS against the same deadline', async () => {
    const checker = new HttpPageChecker({
      urlTemplate: 'http://{hostname}/',
      allowPrivateAddresses: true,
      timeoutMs: 300,
      lookup: () => new Promise(() => {}),
    });
    expect(await checker.checkPage('slow-dns.test', TOKEN)).toEqual(notFound('timed out after 300 ms'));
  });

  it('scans only the first maxBytes of the body', async () => {
    expect(await local({ maxBytes: 1000 }).checkPage('cut', TOKEN)).toEqual({ reachable: true, scriptFound: true, tokenFound: false });
    expect(await local({ maxBytes: 5000 }).checkPage('cut', TOKEN)).toEqual({ reachable: true, scriptFound: true, tokenFound: true });
  });

  it('stops reading an endless body and hangs up', async () => {
    const result = await local({ maxBytes: 256 * 1024, timeoutMs: 3000 }).checkPage('endless', TOKEN);
    expect(result).toEqual({ reachable: true, scriptFound: true, tokenFound: false });
    await bigClosed;
  });
});

describe('HttpPageChecker SSRF guard', () => {
  const guarded = (overrides: Partial<HttpPageCheckerOptions> = {}) =>
    new HttpPageChecker({ urlTemplate: `http://127.0.0.1:${port}/{hostname}`, allowPrivateAddresses: false, ...overrides });

  it('refuses a loopback IP literal before any request is made', async () => {
    expect(await guarded().checkPage('script', TOKEN)).toEqual(notFound('refused non-public address'));
    expect(hits).toEqual([]);
  });

  it.each([`http://[::ffff:127.0.0.1]:PORT/`, `http://[::1]:PORT/`, 'http://169.254.169.254/latest/meta-data/', 'http://0x7f.1:PORT/', 'http://2130706433:PORT/'])(
    'refuses %s',
    async (template) => {
      const checker = new HttpPageChecker({ urlTemplate: template.replace('PORT', String(port)), allowPrivateAddresses: false });
      expect(await checker.checkPage('site.example', TOKEN)).toEqual(notFound('refused non-public address'));
      expect(hits).toEqual([]);
    },
  );

  it('refuses a name that resolves to a private address', async () => {
    const dns = fakeDns({ 'site.test': ['127.0.0.1'] });
    const checker = new HttpPageChecker({ urlTemplate: `http://{hostname}:${port}/script`, allowPrivateAddresses: false, lookup: dns.lookup });
    expect(await checker.checkPage('site.test', TOKEN)).toEqual(notFound('refused non-public address'));
    expect(dns.asked).toEqual(['site.test']);
    expect(hits).toEqual([]);
  });

  it('refuses a name when any of its addresses is private', async () => {
    const dns = fakeDns({ 'mixed.test': ['8.8.8.8', '10.0.0.7'] });
    const checker = new HttpPageChecker({ urlTemplate: 'https://{hostname}/', allowPrivateAddresses: false, lookup: dns.lookup });
    expect(await checker.checkPage('mixed.test', TOKEN)).toEqual(notFound('refused non-public address'));
  });

  it('refuses localhost through the system resolver', async () => {
    const checker = new HttpPageChecker({ urlTemplate: `http://{hostname}:${port}/script`, allowPrivateAddresses: false });
    expect(await checker.checkPage('localhost', TOKEN)).toEqual(notFound('refused non-public address'));
    expect(hits).toEqual([]);
  });

  it('reports DNS failures', async () => {
    const dns = fakeDns({ 'empty.test': [] });
    const checker = new HttpPageChecker({ urlTemplate: 'https://{hostname}/', allowPrivateAddresses: false, lookup: dns.lookup });
    expect(await checker.checkPage('nowhere.test', TOKEN)).toEqual(notFound('dns lookup failed (ENOTFOUND)'));
    expect(await checker.checkPage('empty.test', TOKEN)).toEqual(notFound('dns lookup returned no addresses'));
  });
});
