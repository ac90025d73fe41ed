/**
 * PageChecker over node:http/https (DESIGN §3 site verification): fetches the site's page with an
 * SSRF guard, redirect (only within the site), time and size limits, then scans it for this
 * service's script or the verify token, reading a /latest.js on the site itself through the same
 * fetch to see whether it serves this service's build; and reads the hostname's DNS TXT records.
 */
import { promises as dns } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import zlib from 'node:zlib';
import { isPublicAddress } from '#domain/address-guard.ts';
import { hostTwins, isTrackerBuild, scanPage } from '#domain/page-scan.ts';
import { DNS_TXT_PREFIX, type ProxiedMismatch } from '#domain/site-verification.ts';
import type { PageCheck, PageCheckRequest, PageChecker } from '#ports/page-checker.ts';

/** Resolves a hostname to all of its addresses (dns.lookup with all: true). */
export type ResolveAll = (hostname: string) => Promise<readonly LookupAddress[]>;
/** A hostname's TXT records, each as its character-string chunks (dns.resolveTxt). */
export type ResolveTxt = (hostname: string) => Promise<string[][]>;

export interface HttpPageCheckerOptions {
  /** Page to fetch, e.g. 'https://{hostname}/'. */
  urlTemplate: string;
  /** Skip the SSRF guard (local tests only). */
  allowPrivateAddresses: boolean;
  /** The latest.js this service serves (functions/tracker/build.ts): a /latest.js on the site counts when it serves this. */
  trackerScript: string;
  /** Budget for the whole check, all hops and the body included. */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  lookup?: ResolveAll;
  resolveTxt?: ResolveTxt;
}

export const USER_AGENT = 'tinytrack-verifier/1.0 (+site verification)';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Proxied /latest.js candidates read per check, in page order: a page cannot make one check fetch many. */
export const MAX_PROXIED_SCRIPTS = 3;
// Characters that would change the URL's structure around {hostname}; valid hostnames never have them.
const UNSAFE_HOSTNAME = /[\s/\\@?#%]/;

const systemLookup: ResolveAll = (hostname) => dns.lookup(hostname, { all: true });

function systemResolveTxt(timeoutMs: number): ResolveTxt {
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 2 });
  return (hostname) => resolver.resolveTxt(hostname);
}

/** Expected failures carry their own message; everything else is reported by code. */
class CheckError extends Error {}
/** A redirect that leaves the site: the owner has to fix the page address, not the page. */
class OffSiteError extends CheckError {}

type Hop = { kind: 'redirect'; location: string } | { kind: 'page'; body: Buffer; truncated: boolean; encoding: string | undefined };

/** What a hop asks for: the Accept header, and how many body bytes are read at most. */
interface HopRequest {
  accept: string;
  maxBytes: number;
}

export class HttpPageChecker implements PageChecker {
  private readonly urlTemplate: string;
  private readonly allowPrivateAddresses: boolean;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly maxRedirects: number;
  private readonly resolveAll: ResolveAll;
  private readonly resolveTxt: ResolveTxt;
  private readonly trackerScript: string;

  constructor(options: HttpPageCheckerOptions) {
    this.urlTemplate = options.urlTemplate;
    this.allowPrivateAddresses = options.allowPrivateAddresses;
    this.trackerScript = options.trackerScript;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.maxRedirects = options.maxRedirects ?? 3;
    this.resolveAll = options.lookup ?? systemLookup;
    this.resolveTxt = options.resolveTxt ?? systemResolveTxt(this.timeoutMs);
  }

  async checkPage({ hostname, verifyToken, publicOrigins }: PageCheckRequest): Promise<PageCheck> {
    const deadline = Date.now() + this.timeoutMs;
    let page: { url: URL; body: string; siteHosts: string[] };
    try {
      page = await this.withDeadline(this.timeoutMs, (signal) => this.fetchPage(hostname, signal));
    } catch (err) {
      return { reachable: false, offSite: err instanceof OffSiteError, error: describe(err) };
    }
    const scan = scanPage(page.body, { pageUrl: page.url.href, siteHosts: page.siteHosts, publicOrigins, verifyToken });
    // This service's script on a public origin settles it; otherwise a proxied one has to show its body.
    const proxied = scan.scriptFound ? { found: false, mismatch: null } : await this.readProxied(scan.proxiedScripts, hostname, page.siteHosts, deadline);
    return { reachable: true, ...scan, scriptFound: scan.scriptFound || proxied.found, proxiedMismatch: proxied.mismatch };
  }

  /**
   * Reads the site's /latest.js candidates (at most MAX_PROXIED_SCRIPTS) as the page was read,
   * within what is left of the check's deadline: found when one serves this service's build, else
   * the first that does not, and why.
   */
  private async readProxied(scripts: readonly string[], hostname: string, siteHosts: readonly string[], deadline: number): Promise<{ found: boolean; mismatch: ProxiedMismatch | null }> {
    const request: HopRequest = { accept: 'application/javascript, */*;q=0.5', maxBytes: this.maxBytes };
    let mismatch: ProxiedMismatch | null = null;
    for (const script of scripts.slice(0, MAX_PROXIED_SCRIPTS)) {
      let why = "it serves another script than this service's latest.js";
      try {
        const hop = await this.withDeadline(deadline - Date.now(), (signal) => this.fetchOnSite(parseHttpUrl(script), hostname, siteHosts, signal, request, 'the script'));
        if (!hop.truncated && isTrackerBuild(decodeBody(hop.body, hop.encoding, this.maxBytes).toString('utf8'), this.trackerScript)) return { found: true, mismatch: null };
      } catch (err) {
        why = describe(err);
      }
      mismatch ??= { script, why };
    }
    return { found: false, mismatch };
  }

  /**
   * An image at `url` (the site's icon): redirects are followed to any public host, the whole
   * body must fit `maxBytes`. Null for anything else: no answer, not 2xx, too large, refused address.
   */
  async fetchImage(url: string, maxBytes: number): Promise<Buffer | null> {
    const request: HopRequest = { accept: 'image/*', maxBytes };
    try {
      return await this.withDeadline(this.timeoutMs, async (signal) => {
        let at = parseHttpUrl(url);
        for (let redirects = 0; ; redirects++) {
          const hop = await this.fetchHop(at, signal, request);
          if (hop.kind === 'page') return hop.truncated ? null : hop.body;
          if (redirects >= this.maxRedirects) return null;
          at = parseHttpUrl(hop.location, at);
        }
      });
    } catch {
      return null;
    }
  }

  /**
   * Runs `work` under one deadline, `ms` from now, for DNS, every hop and the body; aborting tears
   * down whatever socket is open. The error names the whole check's budget, which `ms` is part of.
   */
  private async withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          reject(new CheckError(`timed out after ${this.timeoutMs} ms`));
          controller.abort();
        },
        Math.max(0, ms),
      );
    });
    try {
      return await Promise.race([work(controller.signal), deadline]);
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  async hasTxtRecord(hostname: string, token: string, prefix = DNS_TXT_PREFIX): Promise<boolean> {
    if (token === '') return false;
    try {
      const records = await this.resolveTxt(hostname);
      // A long record arrives in 255-byte chunks.
      return records.some((chunks) => chunks.join('').trim() === `${prefix}${token}`);
    } catch {
      // No record, no such name, or the resolver failed: not verified by DNS.
      return false;
    }
  }

  /**
   * The site is the registered hostname, its apex/www twin and the host the template points at
   * (the same name unless a test serves pages elsewhere); redirects may not leave it.
   */
  private async fetchPage(hostname: string, signal: AbortSignal): Promise<{ url: URL; body: string; siteHosts: string[] }> {
    const request: HopRequest = { accept: 'text/html,*/*;q=0.5', maxBytes: this.maxBytes };
    if (hostname === '' || UNSAFE_HOSTNAME.test(hostname)) throw new CheckError('invalid hostname');
    const start = parseHttpUrl(this.urlTemplate.replaceAll('{hostname}', hostname));
    const siteHosts = [...new Set([...hostTwins(hostname), ...hostTwins(start.hostname)])];
    const page = await this.fetchOnSite(start, hostname, siteHosts, signal, request, 'the page');
    // A huge page is scanned by its head.
    return { url: page.url, body: page.body.toString('utf8'), siteHosts };
  }

  /** `url`'s answer, following at most maxRedirects redirects, each within the site (`siteHosts`); `what` names it in errors. */
  private async fetchOnSite(
    url: URL,
    hostname: string,
    siteHosts: readonly string[],
    signal: AbortSignal,
    request: HopRequest,
    what: string,
  ): Promise<Extract<Hop, { kind: 'page' }> & { url: URL }> {
    for (let redirects = 0; ; redirects++) {
      const hop = await this.fetchHop(url, signal, request);
      if (hop.kind === 'page') return { ...hop, url };
      if (redirects >= this.maxRedirects) throw new CheckError('too many redirects');
      url = parseHttpUrl(hop.location, url);
      if (!siteHosts.includes(url.hostname)) {
        throw new OffSiteError(`${what} redirects to ${url.host}, another site; only redirects within ${hostTwins(hostname).join(' and ')} are followed`);
      }
    }
  }

  /** Resolves and vets the host, then connects to exactly the vetted addresses (no DNS rebinding). */
  private async fetchHop(url: URL, signal: AbortSignal, { accept, maxBytes }: HopRequest): Promise<Hop> {
    // URL keeps IPv6 literals bracketed; node:net wants them bare.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = await this.resolve(host);
    if (!this.allowPrivateAddresses && addresses.some((a) => !isPublicAddress(a.address))) {
      throw new CheckError('refused non-public address');
    }
    const first = addresses[0]!;
    const pinnedLookup: net.LookupFunction = (_name, options, callback) => {
      // Happy-eyeballs (autoSelectFamily) asks for all addresses; plain connects ask for one.
      if (options.all) callback(null, [...addresses]);
      else callback(null, first.address, first.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Hop>((resolve, reject) => {
      const req = client.request(
        {
          protocol: url.protocol,
          hostname: host,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          headers: { 'user-agent': USER_AGENT, accept, 'accept-encoding': 'identity' },
          lookup: pinnedLookup,
          // A fresh connection per hop: a pooled socket could have been opened for another address.
          agent: false,
          signal,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          if (REDIRECT_STATUSES.has(status) && location) {
            res.destroy();
            resolve({ kind: 'redirect', location });
          } else if (status < 200 || status > 299) {
            res.destroy();
            reject(new CheckError(`HTTP ${status}`));
          } else {
            const encoding = res.headers['content-encoding']?.trim().toLowerCase();
            readLimited(res, maxBytes).then(({ body, truncated }) => resolve({ kind: 'page', body, truncated, encoding }), reject);
          }
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  private async resolve(host: string): Promise<readonly LookupAddress[]> {
    const family = net.isIP(host);
    if (family !== 0) return [{ address: host, family }];
    let addresses: readonly LookupAddress[];
    try {
      addresses = await this.resolveAll(host);
    } catch (err) {
      throw new CheckError(`dns lookup failed (${errorCode(err) ?? 'error'})`);
    }
    if (addresses.length === 0) throw new CheckError('dns lookup returned no addresses');
    return addresses;
  }
}

function parseHttpUrl(input: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new CheckError(base ? 'invalid redirect location' : 'invalid page URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CheckError(`unsupported protocol ${url.protocol}`);
  return url;
}

/**
 * A body as sent before its Content-Encoding (asked for `identity`, but a proxy may compress anyway),
 * at most maxBytes of it decoded.
 */
function decodeBody(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer {
  const options = { maxOutputLength: maxBytes };
  try {
    switch (encoding) {
      case undefined:
      case '':
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, options);
      case 'deflate':
        return zlib.inflateSync(body, options);
      case 'br':
        return zlib.brotliDecompressSync(body, options);
    }
  } catch {
    throw new CheckError(`the ${encoding} body could not be decoded within ${maxBytes} bytes`);
  }
  throw new CheckError(`unsupported content encoding ${encoding}`);
}

/** Reads at most maxBytes of the body, then drops the connection; `truncated` when there was more. */
function readLimited(res: IncomingMessage, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (truncated: boolean) => {
      if (done) return;
      done = true;
      resolve({ body: Buffer.concat(chunks, total), truncated });
    };
    res.on('data', (chunk: Buffer) => {
      if (done) return;
      const room = maxBytes - total;
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(piece);
      total += piece.length;
      if (chunk.length > room) {
        finish(true);
        res.destroy();
      }
    });
    res.on('end', () => finish(false));
    res.on('error', (err) => {
      if (!done) {
        done = true;
        reject(err);
      }
    });
    // A connection dropped mid-body ends as 'close' without 'end'.
    res.on('close', () => {
      if (!done && !res.complete) {
        done = true;
        reject(new CheckError('connection closed before the page was complete'));
      }
    });
  });
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function describe(err: unknown): string {
  if (err instanceof CheckError) return err.message;
  const code = errorCode(err);
  if (code) return `network error (${code})`;
  return err instanceof Error ? err.message : 'unknown error';
}
