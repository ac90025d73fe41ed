/**
 * The outbound redirect `GET /r?hostname=H&u=URL` (DESIGN.md §4, issue 39):
 * which targets it may send a browser to. Only an absolute http(s) URL whose
 * host is H, a subdomain of H, or one of the site's `redirect_hosts`; never
 * an open redirect. The raw text is judged before any parser sees it, since
 * URL parsers repair what browsers also repair (`https:evil.example`,
 * `/\evil.example`, stray whitespace) into another host.
 */
import { normalizeHostname } from '../hostname.ts';

/** A target longer than this many bytes is refused. */
export const MAX_REDIRECT_BYTES = 2048;
/** Hosts a site may list besides its own. */
export const MAX_REDIRECT_HOSTS = 20;

export const REDIRECT_ERRORS = ['hostname required', 'u required', 'redirect target not allowed'] as const;

/** Control characters (CR, LF and NUL among them), spaces, DEL, backslashes: no allowed URL holds one raw. */
function hasForbidden(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x5c) return true;
  }
  return false;
}
/** An absolute http(s) URL with an authority, written out: `https:evil.example` and `///evil.example` are not. */
const ABSOLUTE = /^https?:\/\/[^/]/i;

export type RedirectTarget = { ok: true; url: string; host: string } | { ok: false; error: (typeof REDIRECT_ERRORS)[number] };

/** Whether `host` is the site's own (or a subdomain of it) or listed. */
const allowedHost = (host: string, site: string, listed: readonly string[]) => host === site || host.endsWith(`.${site}`) || listed.includes(host);

/**
 * Where `/r` may send the browser: the serialized URL (so the Location header holds only what the
 * parser wrote) and its host. `site` is the normalized hostname, `listed` the site's redirect hosts.
 */
export function redirectTarget(raw: string | undefined, site: string, listed: readonly string[]): RedirectTarget {
  if (raw === undefined || raw === '') return { ok: false, error: REDIRECT_ERRORS[1] };
  const refused: RedirectTarget = { ok: false, error: REDIRECT_ERRORS[2] };
  if (Buffer.byteLength(raw) > MAX_REDIRECT_BYTES || hasForbidden(raw) || !ABSOLUTE.test(raw)) return refused;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refused;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') return refused;
  // The parser's host is lower-case ASCII (IDNA applied, percent-escapes decoded): a look-alike is its own punycode name.
  const host = url.hostname.replace(/\.$/, '');
  return allowedHost(host, site, listed) ? { ok: true, url: url.href, host } : refused;
}

/** A site's `redirect_hosts` as a settings request gives them: at most MAX_REDIRECT_HOSTS hostnames, normalized as registration normalizes them. */
export function parseRedirectHosts(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > MAX_REDIRECT_HOSTS) return null;
  const hosts: string[] = [];
  for (const raw of value) {
    const n = normalizeHostname(raw);
    if (!n.ok) return null;
    hosts.push(n.hostname);
  }
  return [...new Set(hosts)];
}
