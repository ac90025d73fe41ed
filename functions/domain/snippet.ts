/** The script tag an owner copies into their pages (README "Track your site", GET …/setup). */
import { publicScriptUrl } from './page-scan.ts';

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * `<script async src="…/latest.js"></script>` from a public origin (which may carry a path
 * prefix). `hostname` adds data-hostname, for pages whose own hostname is not the site's
 * (localhost, a staging host). Null when the origin is not an http(s) URL.
 */
export function trackerSnippet(origin: string, hostname?: string): string | null {
  const src = publicScriptUrl(origin);
  if (!src) return null;
  const named = hostname === undefined ? '' : ` data-hostname="${attribute(hostname)}"`;
  return `<script async src="${attribute(src.href)}"${named}></script>`;
}
