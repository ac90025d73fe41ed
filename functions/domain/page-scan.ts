/**
 * Site verification page scan (DESIGN §3): does the fetched page prove that its owner chose this
 * service for this registration? Only this service's script or the token in its own places count.
 * A /latest.js on the site itself is only a candidate: it counts once the page checker has read
 * it and found this service's build (isTrackerBuild), since any library may be named latest.js.
 */
import type * as Htmlparser2 from 'htmlparser2';
import { lazyModule } from './lazy-module.ts';

// Only verification runs parse HTML: the parser loads with the first one.
const htmlparser2 = lazyModule<typeof Htmlparser2>('htmlparser2');

export interface ScanContext {
  /** The page's final URL (after redirects): relative srcs resolve against it. */
  pageUrl: string;
  /** Hostnames that are the site itself (the registered one, its apex/www twin, the fetched page's host). */
  siteHosts: readonly string[];
  /** Origins this service serves latest.js from (PUBLIC_URL), e.g. `https://t.example.com`. */
  publicOrigins: readonly string[];
  verifyToken: string;
}

export interface PageScan {
  /** This service's script: latest.js on a public origin (a proxied one counts once its body is read, see proxiedScripts). */
  scriptFound: boolean;
  /**
   * Scripts at a path ending in /latest.js on the site itself (a proxied tracker, or any other
   * library of that name), absolute, in page order: this service's only if they serve its build.
   */
  proxiedScripts: string[];
  /** The token in `<meta name="tinytrack-verification">` in head, or in a script's data-verification. */
  tokenFound: boolean;
  /** The first latest.js from anywhere else (another service's snippet), as origin and path. */
  foreignScript: string | null;
  /** The token is on the page outside its places, or a verification tag holds another value. */
  tokenMisplaced: boolean;
  /** Where the site's icon may be, best first: the first `<link rel="icon">` (resolved), then `/favicon.ico` of the page's origin. */
  iconUrls: string[];
}

export const VERIFICATION_META = 'tinytrack-verification';
export const VERIFICATION_ATTRIBUTE = 'data-verification';

// Elements that may stand in <head>; any other element (or text) starts the body, as in HTML parsing.
const HEAD_ELEMENTS = new Set(['html', 'head', 'meta', 'link', 'title', 'style', 'script', 'base', 'noscript', 'template']);
// Their text is not page text: it does not start the body.
const RAW_TEXT = new Set(['title', 'style', 'script', 'noscript', 'template']);

/** A hostname and its apex/www twin: `www.a.com` ↔ `a.com`. */
export function hostTwins(hostname: string): string[] {
  const host = hostname.toLowerCase();
  return host.startsWith('www.') ? [host, host.slice(4)] : [host, `www.${host}`];
}

function parseHttpUrl(input: string, base?: string): URL | null {
  try {
    const url = new URL(input, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** The URL of latest.js on a public origin; the origin may carry a path prefix. */
export function publicScriptUrl(origin: string): URL | null {
  const url = parseHttpUrl(origin);
  if (!url) return null;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/latest.js`;
  return url;
}

/** `rel` holds the token `icon` ("icon", "shortcut icon"; not "apple-touch-icon", a larger picture). */
const isIconLink = (rel: string | undefined) => (rel ?? '').toLowerCase().split(/\s+/).includes('icon');

type SrcKind = { kind: 'own' | 'unrelated' } | { kind: 'foreign' | 'proxied'; script: string };

/** Classifies a script src. The scheme is not compared: an http page may load the https origin and back. */
export function classifyScriptSrc(src: string, ctx: Omit<ScanContext, 'verifyToken'>): SrcKind {
  // Browsers strip leading/trailing ASCII whitespace from URL attributes.
  const url = parseHttpUrl(src.trim(), ctx.pageUrl);
  if (!url) return { kind: 'unrelated' };
  for (const origin of ctx.publicOrigins) {
    const own = publicScriptUrl(origin);
    if (own && own.host === url.host && own.pathname === url.pathname) return { kind: 'own' };
  }
  if (!url.pathname.endsWith('/latest.js')) return { kind: 'unrelated' };
  // Perhaps a proxied tracker, perhaps a library of the same name: its body decides (the query is kept, a proxy may need it).
  if (ctx.siteHosts.includes(url.hostname)) return { kind: 'proxied', script: `${url.origin}${url.pathname}${url.search}` };
  return { kind: 'foreign', script: `${url.origin}${url.pathname}` };
}

/**
 * Whether a script body is this service's build, as a proxy may pass it on: a byte order mark, line
 * ends as CRLF and whitespace at line ends or around the whole are ignored; any other difference
 * (another script, another build, a re-minified copy) is not this service's script. (A compressed
 * transfer is undone by the page checker before this.)
 */
export function isTrackerBuild(body: string, build: string): boolean {
  const normalize = (code: string) => code.replace(/^\uFEFF/, '').replace(/[ \t]+(?=\r?\n)/g, '').replace(/\r\n/g, '\n').trim();
  const ours = normalize(build);
  return ours !== '' && normalize(body) === ours;
}

export function scanPage(html: string, ctx: ScanContext): PageScan {
  const token = ctx.verifyToken;
  const scan: PageScan = { scriptFound: false, proxiedScripts: [], tokenFound: false, foreignScript: null, tokenMisplaced: false, iconUrls: [] };
  let linkIcon: string | null = null;
  let inHead = true;
  let rawDepth = 0;
  const tokenTag = (value: string | undefined, counts: boolean) => {
    if (value === undefined || token === '') return;
    if (value.trim() === token && counts) scan.tokenFound = true;
    else scan.tokenMisplaced = true;
  };
  // A real HTML parser, so commented-out tags and look-alikes in text do not count.
  const parser = new (htmlparser2().Parser)(
    {
      onopentag(name, attribs) {
        if (name === 'body' || !HEAD_ELEMENTS.has(name)) inHead = false;
        if (RAW_TEXT.has(name)) rawDepth++;
        if (name === 'meta' && attribs['name']?.trim().toLowerCase() === VERIFICATION_META) tokenTag(attribs['content'] ?? '', inHead);
        if (name === 'link' && linkIcon === null && isIconLink(attribs['rel'])) linkIcon = parseHttpUrl((attribs['href'] ?? '').trim(), ctx.pageUrl)?.href ?? null;
        if (name !== 'script') return;
        tokenTag(attribs[VERIFICATION_ATTRIBUTE], true);
        const src = attribs['src'];
        if (src === undefined) return;
        const found = classifyScriptSrc(src, ctx);
        if (found.kind === 'own') scan.scriptFound = true;
        else if (found.kind === 'proxied' && !scan.proxiedScripts.includes(found.script)) scan.proxiedScripts.push(found.script);
        else if (found.kind === 'foreign') scan.foreignScript ??= found.script;
      },
      onclosetag(name) {
        if (RAW_TEXT.has(name) && rawDepth > 0) rawDepth--;
        if (name === 'head') inHead = false;
      },
      ontext(text) {
        if (rawDepth === 0 && text.trim() !== '') inHead = false;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const favicon = parseHttpUrl('/favicon.ico', ctx.pageUrl)?.href;
  scan.iconUrls = [...new Set([linkIcon, favicon].filter((u): u is string => typeof u === 'string'))];
  if (scan.tokenFound) scan.tokenMisplaced = false;
  // The token in a comment or text proves nothing (a visitor can write it there), but says what to fix.
  else if (token !== '' && html.includes(token)) scan.tokenMisplaced = true;
  return scan;
}
