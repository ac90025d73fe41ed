/**
 * The crawler routes of the route table (issue 41), in the `crawlers` group:
 * linking a site to a Cloudflare zone and listing a token's zones (ID token
 * only), a sync now (`manage`) and the hits read (`read`), owner only also
 * for public sites. Listed by functions/http/routes.ts.
 */
import { z } from 'zod';
import { Timestamp } from './schemas.ts';
import { idOnly, invalidInput, rateLimited, refusals, reportQuery, scoped, siteReader, type RouteDef } from './route-def.ts';
import { CloudflareTokenRequiredError, NoCrawlerLinkError, NotAvailableOnStoreError, UnknownDimensionError, UnknownSiteError } from '#domain/errors.ts';
import { CLOUDFLARE_ERROR_FORMS, LINK_REQUEST_ERRORS } from '#domain/crawlers/link-request.ts';
import { REPORT_QUERY_ERRORS } from '#domain/reports/query.ts';

const Category = z.enum(['ai', 'search', 'other']);

const CrawlerLink = z
  .object({
    zone_id: z.string(),
    zone_name: z.string(),
    linked_at: Timestamp,
    last_sync_at: Timestamp.nullable(),
    last_error: z.string().nullable().describe("The last sync's error (Cloudflare's text), null when it succeeded"),
  })
  .nullable()
  .meta({ id: 'CrawlerLink' });
const CrawlerLinkAnswer = z.object({ link: CrawlerLink }).meta({ id: 'CrawlerLinkAnswer' });
const LinkCrawlersRequest = z.object({ token: z.string().describe('A Cloudflare API token with Zone:Read and Analytics:Read on the zone'), zone_id: z.string().regex(/^[0-9a-f]{32}$/) }).meta({ id: 'LinkCrawlersRequest' });
const CloudflareZones = z.object({ zones: z.array(z.object({ id: z.string(), name: z.string() })) }).meta({ id: 'CloudflareZones' });
const CrawlerReport = z
  .object({
    rows: z.array(
      z.object({
        name: z.string().describe('The crawler, the path (dim=pages) or the category (dim=categories)'),
        category: Category.describe("The crawler's category; for a page, the category with the most hits on it"),
        hits: z.number().int(),
        pages: z.number().int().describe('Distinct paths crawled (1 for a page)'),
      }),
    ),
    series: z.array(z.object({ day: z.string().describe('YYYY-MM-DD in tz'), ai: z.number().int(), search: z.number().int(), other: z.number().int() })),
    link: CrawlerLink,
  })
  .meta({ id: 'CrawlerReport' });

const cloudflare = invalidInput(CLOUDFLARE_ERROR_FORMS);

export const crawlerRoutes: readonly RouteDef[] = [
  {
    method: 'POST',
    path: '/api/sites/{hostname}/crawlers/link',
    group: 'crawlers',
    auth: 'id_token',
    summary:
      'Link the site to a Cloudflare zone for crawler hits (owner ID token only). The token is checked against Cloudflare (the zone and one analytics read), ' +
      'sealed at rest and never answered; a link replaces the previous one. Hits are read hourly from then on.',
    request: LinkCrawlersRequest,
    responses: { 200: { description: 'linked', schema: CrawlerLinkAnswer }, ...refusals(invalidInput(LINK_REQUEST_ERRORS), cloudflare, ...idOnly, UnknownSiteError) },
  },
  {
    method: 'DELETE',
    path: '/api/sites/{hostname}/crawlers/link',
    group: 'crawlers',
    auth: 'id_token',
    summary: "Remove the site's Cloudflare link and its sealed token (owner ID token only). Hits already read remain.",
    responses: { 200: { description: 'unlinked', schema: CrawlerLinkAnswer }, ...refusals(...idOnly, UnknownSiteError) },
  },
  {
    method: 'GET',
    path: '/api/cloudflare/zones',
    group: 'crawlers',
    auth: 'id_token',
    summary: 'The zones a Cloudflare API token can read, by name (ID token only). The token goes in the X-Cloudflare-Token header, never in the URL; it is not stored.',
    responses: { 200: { description: 'zones', schema: CloudflareZones }, ...refusals(CloudflareTokenRequiredError, cloudflare, ...idOnly) },
  },
  {
    method: 'POST',
    path: '/api/sites/{hostname}/crawlers/sync',
    group: 'crawlers',
    auth: 'account',
    scope: 'manage',
    summary: "Read the site's Cloudflare zone now (the hours since the last sync, at most 72) instead of waiting for the hourly sync; answers the link with the outcome.",
    responses: { 200: { description: 'synced (or last_error set)', schema: CrawlerLinkAnswer }, ...refusals(...scoped('manage'), UnknownSiteError, NoCrawlerLinkError, ...rateLimited) },
  },
  {
    method: 'GET',
    path: '/api/sites/{hostname}/crawlers',
    group: 'crawlers',
    auth: 'owner',
    scope: 'read',
    summary:
      'AI, search and other crawler hits read from the linked Cloudflare zone: rows by crawler, page or category (hits descending), ' +
      'the daily hits per category in tz (zero-filled), and the link. Owner only (ID token or read key), also for public sites.',
    query: { from: reportQuery.from, to: reportQuery.to, tz: reportQuery.tz, dim: 'crawlers (default), pages or categories', limit: 'Default 10, clamped to 1..1000' },
    responses: { 200: { description: 'report', schema: CrawlerReport }, ...refusals(invalidInput(REPORT_QUERY_ERRORS), UnknownDimensionError, ...siteReader, NotAvailableOnStoreError) },
  },
];
