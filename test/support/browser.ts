/**
 * Browser test support: a node:http server that plays both the site (HTML
 * fixtures) and the collector (built latest.js, /simple.gif, /events, /append,
 * every beacon recorded), and a real headless Chromium through playwright-core.
 * Pages are served from http://localhost:PORT and the script from
 * http://127.0.0.1:PORT, so the collector origin is the script's, not the page's.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildTracker } from '../../functions/tracker/build.ts';
import { findChromium } from './chromium.ts';

/** A desktop Chrome's user agent: headless Chromium says "HeadlessChrome" and would rightly be stored as a bot. */
export const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/**
 * Flags for every browser the tests launch. `--accept-lang=en-US` gives pages
 * the languages a desktop browser gives: the packaged headless build otherwise
 * takes them from the process's POSIX locale, which in the C locale of CI
 * machines is "en-US@posix", not a BCP 47 tag, and uPlot's
 * `new Intl.NumberFormat(navigator.language)` then throws while the dashboard
 * loads (contexts that set `locale` override it).
 */
export const CHROMIUM_ARGS = [
  '--accept-lang=en-US',
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser from findChromium (test/support/chromium.ts); fails (never skips) when none is found. */
export async function launchChromium(): Promise<Browser> {
  const { path } = await findChromium();
  return chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
}

export type CollectorRoute = '/simple.gif' | '/events' | '/append';

export interface Beacon {
  route: CollectorRoute;
  method: string;
  /** Host header: where the browser sent the beacon. */
  host: string;
  /** Query parameters in the order sent. */
  params: [string, string][];
  query: Record<string, string>;
  /** Parsed JSON body of POST routes (undefined for GET), or the raw text when it does not parse. */
  body: unknown;
  contentType: string | undefined;
  cookie: string | undefined;
}

export interface TrackerServer {
  port: number;
  /** Origin the fixture pages are served from. */
  pageOrigin: string;
  /** Origin latest.js and the collector are served from. */
  scriptOrigin: string;
  code: string;
  beacons: Beacon[];
  /** Status answered on /simple.gif (200 GIF by default; anything else answers plain text, firing the image's error). */
  gifStatus: number;
  /** Serves `html` at `path` (pathname only; any query string is accepted) and returns the page URL. */
  page(path: string, html: string): string;
  /** `<script src=".../latest.js" data-…>` with the given data attributes. */
  scriptTag(attrs?: Record<string, string>): string;
  /** Resolves with the beacons once `ready(beacons)` holds; rejects after `timeoutMs`. */
  waitFor(ready: (beacons: Beacon[]) => boolean, timeoutMs?: number): Promise<Beacon[]>;
  /** Waits for `count` beacons, then `quietMs` more, and returns all of them (extra ones included, for exact assertions). */
  settle(count: number, quietMs?: number): Promise<Beacon[]>;
  clear(): void;
  close(): Promise<void>;
}

// 1×1 transparent GIF, as the collector answers.
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const ROUTES = new Set<string>(['/simple.gif', '/events', '/append']);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let built: Promise<{ code: string }> | undefined;

export async function startTrackerServer(): Promise<TrackerServer> {
  const { code } = await (built ??= buildTracker());
  const pages = new Map<string, string>();
  const beacons: Beacon[] = [];

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method === 'OPTIONS') {
        res.writeHead(204).end();
        return;
      }
      if (url.pathname === '/latest.js') {
        res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(code);
        return;
      }
      if (ROUTES.has(url.pathname)) {
        const text = req.method === 'POST' ? await readBody(req) : '';
        let body: unknown;
        if (req.method === 'POST') {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        }
        beacons.push({
          route: url.pathname as CollectorRoute,
          method: req.method ?? '',
          host: req.headers.host ?? '',
          params: [...url.searchParams],
          query: Object.fromEntries(url.searchParams),
          body,
          contentType: req.headers['content-type'],
          cookie: req.headers.cookie,
        });
        if (url.pathname === '/simple.gif' && api.gifStatus !== 200) res.writeHead(api.gifStatus, { 'content-type': 'text/plain' }).end('invalid');
        else if (url.pathname === '/simple.gif') res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' }).end(GIF);
        else res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
        return;
      }
      const html = pages.get(url.pathname);
      if (html === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const pageOrigin = `http://localhost:${port}`;
  const scriptOrigin = `http://127.0.0.1:${port}`;

  const waitFor = async (ready: (b: Beacon[]) => boolean, timeoutMs = 5_000) => {
    const end = Date.now() + timeoutMs;
    while (!ready(beacons)) {
      if (Date.now() > end) throw new Error(`beacons not as expected after ${timeoutMs} ms: ${JSON.stringify(beacons, null, 1)}`);
      await sleep(20);
    }
    return beacons;
  };

  const api: TrackerServer = {
    gifStatus: 200,
    port,
    pageOrigin,
    scriptOrigin,
    code,
    beacons,
    page(path, html) {
      pages.set(path, html);
      return pageOrigin + path;
    },
    scriptTag(attrs = {}) {
      const data = Object.entries(attrs)
        .map(([k, v]) => ` data-${k}="${v}"`)
        .join('');
      return `<script src="${scriptOrigin}/latest.js"${data}></script>`;
    },
    waitFor,
    async settle(count, quietMs = 400) {
      await waitFor((b) => b.length >= count);
      await sleep(quietMs);
      return [...beacons];
    },
    clear() {
      beacons.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return api;
}

/** A minimal HTML page: optional head markup (queue stubs, globals) before the tracker tag, then a body. */
export function html(head: string, body = '<p>hello</p>'): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>fixture</title>${head}</head><body style="margin:0">${body}</body></html>`;
}

export interface Issued {
  method: string;
  route: string;
  query: Record<string, string>;
  body: unknown;
}

/** Collector requests in the order the page issued them (the server may receive parallel requests in another order). */
export function issuedBeacons(page: Page): Issued[] {
  const issued: Issued[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (!ROUTES.has(url.pathname)) return;
    const text = req.postData();
    let body: unknown;
    if (text !== null) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    issued.push({ method: req.method(), route: url.pathname, query: Object.fromEntries(url.searchParams), body });
  });
  return issued;
}

// Page-side globals used inside page.evaluate callbacks (the test tsconfig has no DOM lib).
declare const window: { addEventListener(type: string, fn: () => void, options?: object): void; scrollTo(x: number, y: number): void };
declare const document: { dispatchEvent(e: unknown): void };
declare const Event: new (type: string) => unknown;

/** Makes the page hidden as a tab switch does: the tracker sends its append. */
export async function hidePage(page: Page): Promise<void> {
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

/** Scrolls to `y` and resolves once the page has seen the scroll event. */
export async function scrollPage(page: Page, y: number): Promise<void> {
  await page.evaluate(
    (top: number) =>
      new Promise<void>((resolve) => {
        window.addEventListener('scroll', () => resolve(), { once: true });
        window.scrollTo(0, top);
      }),
    y,
  );
}

/**
 * A web server playing sites on their own origin (http://localhost:PORT, so
 * the service at 127.0.0.1 is another origin): `pages` maps a path to its HTML.
 */
export interface PageOrigin {
  origin: string;
  pages: Map<string, string>;
  close: () => void;
}

export async function startPageOrigin(): Promise<PageOrigin> {
  const pages = new Map<string, string>();
  const server = createServer((req, res) => {
    const body = pages.get(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, pages, close: () => server.close() };
}
