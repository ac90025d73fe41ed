/** Site verification page scan (DESIGN §3): finds the tracking script tag or the verify token in fetched HTML. */
import { Parser } from 'htmlparser2';

export interface PageScan {
  scriptFound: boolean;
  tokenFound: boolean;
}

// Relative srcs are resolved against a neutral base: only the path matters, not which host serves it.
const BASE = 'https://page.invalid/';

/** True when a script src URL's path (query and hash ignored) ends in /latest.js. */
export function isTrackerScriptSrc(src: string): boolean {
  let url: URL;
  try {
    // Browsers strip leading/trailing ASCII whitespace from URL attributes.
    url = new URL(src.trim(), BASE);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  return url.pathname.endsWith('/latest.js');
}

export function scanPage(html: string, verifyToken: string): PageScan {
  let scriptFound = false;
  // A real HTML parser, so commented-out tags and attribute look-alikes in text do not count.
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (scriptFound || name !== 'script') return;
        const src = attribs['src'];
        if (src !== undefined && isTrackerScriptSrc(src)) scriptFound = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  // The token may sit anywhere (meta tag, comment, text); an empty token would match every page.
  const tokenFound = verifyToken.length > 0 && html.includes(verifyToken);
  return { scriptFound, tokenFound };
}
