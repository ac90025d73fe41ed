/**
 * The headers of the dashboard's page as its origin answers it: locally from
 * the node server (functions/local/dashboard-edge.ts), and on AWS for the one
 * page served by a function rather than from S3, the embeddable share view
 * (`/embed/{slug}`, functions/http/handlers/embed.ts). On AWS every other page
 * gets the same headers from CloudFront's response headers policy (lib/dashboard.ts).
 */
import { dashboardCsp, type SignIn } from '#dashboard/config.ts';
import { frameAncestors } from '#domain/sharing/embed-origins.ts';

/** Every page: its CSP, no sniffing, no referrer, no framing at all. */
export function pageSecurityHeaders(signIn: Pick<SignIn, 'type'>): Record<string, string> {
  return {
    'Content-Security-Policy': dashboardCsp(signIn),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
}

/**
 * The embed page of a link whose site allows `origins` to frame it: framable by those alone, with
 * no X-Frame-Options (which cannot name origins) and never kept by a cache (the list can change).
 * None listed (no live link, or a site without a list): every page's headers, framing refused.
 */
export function embedPageHeaders(signIn: Pick<SignIn, 'type'>, origins: readonly string[]): Record<string, string> {
  if (origins.length === 0) return { ...pageSecurityHeaders(signIn), 'Cache-Control': 'no-store' };
  const { 'X-Frame-Options': _denied, ...others } = pageSecurityHeaders(signIn);
  return { ...others, 'Content-Security-Policy': dashboardCsp(signIn, frameAncestors(origins)), 'Cache-Control': 'no-store' };
}

/** The slug of an `/embed/{slug}` path segment, percent-decoded; a segment that does not decode names no link (null). */
export function embedSlugOf(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
