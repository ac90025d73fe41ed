/** Turns a validated payload into the stored row, or says why nothing is stored. */
import type { EventRow } from '#ports/event-store.ts';
import type { CollectorPayload } from './payload.ts';
import {
  countryFromTimezone,
  deriveSource,
  isBotUserAgent,
  isInternalReferrer,
  normalizeEventName,
  parseTechnology,
  referrerHost,
  serializeMetadata,
  utcDay,
  visitorHash,
} from './enrich.ts';

/**
 * Every reason the collector stores nothing (STYLE.md: no silent drops). `client_error`: a
 * `type: "error"` beacon, a script reporting its own failure, counted, never a traffic row.
 */
export const DROP_REASONS = [
  'dnt',
  'invalid',
  'invalid_hostname',
  'unknown_site',
  'unverified',
  'lookup_failed',
  'empty_event_name',
  'replay',
  'queue_full',
  'enqueue_failed',
  'client_error',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface DailySalt {
  /** The UTC day (YYYY-MM-DD) it belongs to. */
  day: string;
  value: string;
}

export interface RowContext {
  /** The normalized, registered hostname. */
  site: string;
  /** Its registration's key (domain/registration.ts). */
  registration: string;
  /** `/append` records an append whatever `type` says. */
  append: boolean;
  now: number;
  ip: string;
  /** The request's User-Agent header, used when the payload has no `ua`. */
  headerUa: string;
  /** The salt of the day it was made for; null only when the salt store failed, then the row has no visitor hash. */
  salt: DailySalt | null;
  newId: () => string;
}

export function buildEventRow(p: CollectorPayload, ctx: RowContext): { row: EventRow } | { drop: DropReason } {
  const kind = ctx.append ? 'append' : p.type;
  if (kind === 'error') return { drop: 'client_error' };
  let event: string | null = null;
  if (kind === 'event') {
    event = normalizeEventName(p.event ?? '');
    if (!event) return { drop: 'empty_event_name' };
  }
  const ua = p.ua ?? ctx.headerUa;
  const tech = parseTechnology(ua, p);
  const refHost = referrerHost(p.referrer);
  const internal = isInternalReferrer(refHost, ctx.site);
  const day = utcDay(ctx.now);
  return {
    row: {
      site: ctx.site,
      registration: ctx.registration,
      ts: ctx.now,
      kind,
      id: p.id ?? ctx.newId(),
      original_id: p.original_id,
      event,
      // A salt is used on its own UTC day only: never yesterday's after midnight.
      visitor: ctx.salt && ctx.salt.day === day ? visitorHash(day, ctx.site, ctx.ip, ua, ctx.salt.value) : null,
      unique: p.unique,
      page_id: p.page_id,
      session_id: p.session_id,
      path: p.path,
      query: p.query,
      referrer: p.referrer,
      referrer_host: internal ? null : refHost,
      utm_source: p.utm_source ?? p.campaign_source ?? p.campaign_ref,
      utm_medium: p.utm_medium ?? p.campaign_medium,
      utm_campaign: p.utm_campaign ?? p.campaign_campaign,
      utm_term: p.utm_term ?? p.campaign_term,
      utm_content: p.utm_content ?? p.campaign_content,
      source: deriveSource(p, refHost, ctx.site),
      country: countryFromTimezone(p.timezone),
      browser: tech.browser,
      os: tech.os,
      device: tech.device,
      language: p.language,
      viewport_width: p.viewport_width,
      viewport_height: p.viewport_height,
      screen_width: p.screen_width,
      screen_height: p.screen_height,
      duration: p.duration === null ? null : Math.round(p.duration),
      scrolled: p.scrolled === null ? null : Math.round(p.scrolled),
      bot: p.bot || isBotUserAgent(ua),
      metadata: serializeMetadata(p.metadata),
      https: p.https,
      imported: false,
      source_id: null,
    },
  };
}
