/**
 * A query string as the handlers read it: name → value, the last value of a
 * repeated name winning, decoded exactly as URLSearchParams decodes (`+` is a
 * space, percent-escapes are UTF-8). Written out because the image beacons
 * carry theirs on every request: URLSearchParams and Object.fromEntries took
 * twice as long for the tracker's query.
 */

/** One name or value: `+` and percent-escapes decoded; a malformed escape is left to URLSearchParams' own lenient rules. */
function decode(text: string): string {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Bytes that are not UTF-8, or a `%` without two hex digits: replaced or kept as URLSearchParams does.
    return new URLSearchParams(`v=${text}`).get('v') as string;
  }
}

/** `a=1&b=x+y` → `{a: '1', b: 'x y'}`, without a leading `?`. The object has no prototype: a name such as `__proto__` is just a name. */
export function parseQueryString(search: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let start = 0;
  while (start < search.length) {
    let end = search.indexOf('&', start);
    if (end < 0) end = search.length;
    if (end > start) {
      const eq = search.indexOf('=', start);
      if (eq >= 0 && eq < end) out[decode(search.slice(start, eq))] = decode(search.slice(eq + 1, end));
      else out[decode(search.slice(start, end))] = '';
    }
    start = end + 1;
  }
  return out;
}
