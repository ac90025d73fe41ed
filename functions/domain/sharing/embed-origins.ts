/**
 * The origins that may frame a site's share links (`embed_origins`, set by
 * the owner): at most 10, each an https origin (or a loopback http origin,
 * for local development), normalized to the URL parser's serialization
 * (lower case, punycode, no default port), so each is a valid
 * `frame-ancestors` source expression. No list: no framing.
 */
export const MAX_EMBED_ORIGINS = 10;

// MAX_EMBED_ORIGINS (10) written out, as every error text is once.
export const INVALID_EMBED_ORIGINS = 'embed_origins must be a list of at most 10 https origins';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function originOf(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 300 || /[\s;,'"*\\]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  const bare = url.username === '' && url.password === '' && (url.pathname === '/' || url.pathname === '') && url.search === '' && url.hash === '';
  return secure && bare && url.hostname !== '' ? url.origin : null;
}

/** The normalized list, each once, or null when a value is not an allowed origin. */
export function parseEmbedOrigins(value: unknown): string[] | null {
  if (!Array.isArray(value) || value.length > MAX_EMBED_ORIGINS) return null;
  const origins: string[] = [];
  for (const raw of value) {
    const origin = originOf(raw);
    if (!origin) return null;
    origins.push(origin);
  }
  return [...new Set(origins)];
}

/** The `frame-ancestors` sources for a list: the origins, or `'none'` when there are none. */
export const frameAncestors = (origins: readonly string[] | null | undefined): string => (origins && origins.length > 0 ? origins.join(' ') : "'none'");
