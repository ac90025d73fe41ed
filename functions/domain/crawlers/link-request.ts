/**
 * The body of POST /api/sites/{hostname}/crawlers/link (issue 41):
 * `{ "token": "<Cloudflare API token>", "zone_id": "<32 hex>" }`, and what
 * answers show of a link (never its token).
 */
import type { CrawlerLinkRecord } from '#ports/crawler-links.ts';

export const LINK_REQUEST_ERRORS = ['token is required', 'zone_id must be a Cloudflare zone id (32 hex characters)'] as const;
const [TOKEN_REQUIRED, INVALID_ZONE] = LINK_REQUEST_ERRORS;

/** The texts of Cloudflare's refusals a link, zone list or sync passes on (ports/cloudflare.ts). */
export const CLOUDFLARE_ERROR_FORMS = ['Cloudflare returned <status>: …', 'Cloudflare error: …'] as const;

/** API tokens are 40 URL-safe characters today; anything printable up to 200 is accepted, the check against Cloudflare decides. */
const TOKEN = /^[\x21-\x7e]{1,200}$/;
const ZONE_ID = /^[0-9a-f]{32}$/;

export type LinkRequest = { ok: true; token: string; zoneId: string } | { ok: false; error: (typeof LINK_REQUEST_ERRORS)[number] };

export const isCloudflareToken = (token: unknown): token is string => typeof token === 'string' && TOKEN.test(token);

export function parseLinkRequest(body: unknown): LinkRequest {
  const { token, zone_id } = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (!isCloudflareToken(token)) return { ok: false, error: TOKEN_REQUIRED };
  if (typeof zone_id !== 'string' || !ZONE_ID.test(zone_id.toLowerCase())) return { ok: false, error: INVALID_ZONE };
  return { ok: true, token, zoneId: zone_id.toLowerCase() };
}

export type LinkView = Pick<CrawlerLinkRecord, 'zone_id' | 'zone_name' | 'linked_at' | 'last_sync_at' | 'last_error'>;

export const linkView = (link: CrawlerLinkRecord | null): LinkView | null =>
  link && { zone_id: link.zone_id, zone_name: link.zone_name, linked_at: link.linked_at, last_sync_at: link.last_sync_at, last_error: link.last_error };

export const CRAWLER_DIMS = ['crawlers', 'pages', 'categories'] as const;
