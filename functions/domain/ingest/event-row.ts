/** Turns a validated payload into the stored row, or says why nothing is stored. */
import type { EventRow } from '#domain/rows/event-row.ts';
import type { CollectorCaches } from './caches.ts';
import { drop, type Drop } from './drop.ts';
import type { CollectorPayload } from './payload.ts';
import { normalizeEventName } from '../event-name.ts';
import { deriveSource, isInternalReferrer, referrerHost, serializeMetadata, technology, visitorHash } from './enrich.ts';

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

/** The enrich step: the payload as a row with its visitor hash, technology, country and source; or why nothing is stored. */
export function buildEventRow(p: CollectorPayload, ctx: RowContext, caches: CollectorCaches): EventRow | Drop {
  const kind = ctx.append ? 'append' : p.type;
  if (kind === 'error') return drop('client_error');
  let event: string | null = null;
  if (kind === 'event') {
    event = normalizeEventName(p.event ?? '');
    if (!event) return drop('empty_event_name');
  }
  const ua = p.ua ?? ctx.headerUa;
  const agent = caches.agents(ua);
  const tech = technology(agent, p, caches.brands);
  const refHost = referrerHost(p.referrer);
  const internal = isInternalReferrer(refHost, ctx.site);
  const day = caches.utcDay(ctx.now);
  return {
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
    country: p.timezone ? caches.countries(p.timezone) : null,
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
    // The bot step: the payload's own flag, or what isbot says of the user agent.
    bot: p.bot || agent.bot,
    metadata: serializeMetadata(p.metadata),
    https: p.https,
    imported: false,
    source_id: null,
  };
}
