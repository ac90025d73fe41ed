/**
 * Pure enrichment of a collected beacon: event names and metadata (spec part 6
 * rules 3–4), visitor hash, country from the timezone, user agent and client
 * hints, acquisition source.
 */
import { hash } from 'node:crypto';
import { getCountryForTimezone } from 'countries-and-timezones';
import { isbot } from 'isbot';
import UAParser from 'ua-parser-js';
import { memoize } from '../memo.ts';
import { browserFromHints, type BrowserHints } from './client-hints.ts';

export const MAX_EVENT_NAME = 256;
export const MAX_METADATA_CHARS = 4096;

/** Cut to 256 first, then every run of non-alphanumerics becomes `_`, edges trimmed. Empty means: store nothing. */
export function normalizeEventName(name: string): string {
  return name
    .slice(0, MAX_EVENT_NAME)
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** At most 4,096 characters of serialized JSON are kept; longer data is cut and may no longer parse. */
export function serializeMetadata(metadata: Record<string, unknown> | null): string | null {
  if (!metadata) return null;
  return JSON.stringify(metadata).slice(0, MAX_METADATA_CHARS);
}

let lastDay = { number: NaN, text: '' };
/** YYYY-MM-DD of a Unix ms time in UTC. The last day is remembered: every beacon asks, twice. */
export function utcDay(ms: number): string {
  const number = Math.floor(ms / 86_400_000);
  if (number !== lastDay.number) lastDay = { number, text: new Date(ms).toISOString().slice(0, 10) };
  return lastDay.text;
}

/** hash(UTC day, site, IP, UA, daily salt): one visitor per day per site, unlinkable once the salt is gone. */
export function visitorHash(day: string, site: string, ip: string, ua: string, salt: string): string {
  // The one-shot hash: half the cost of createHash().update().digest() per beacon.
  return hash('sha256', `${day}\n${site}\n${ip}\n${ua}\n${salt}`, 'hex').slice(0, 32);
}

/** Remembered per zone name: a few hundred zones, looked up on every beacon. */
const countryOfZone = memoize((timezone: string): string | null => {
  try {
    return getCountryForTimezone(timezone)?.id ?? null;
  } catch {
    return null;
  }
});

export function countryFromTimezone(timezone: string | null): string | null {
  return timezone ? countryOfZone(timezone) : null;
}

/** Visitors repeat their user agent from beacon to beacon, so both UA readings are memoized. */
export const isBotUserAgent = memoize((ua: string): boolean => ua.trim() === '' || isbot(ua));

export interface ClientHints extends BrowserHints {
  mobile: boolean | null;
  os_name: string | null;
}

export interface Technology {
  browser: string | null;
  os: string | null;
  device: 'desktop' | 'mobile' | 'tablet' | null;
}

const parseUserAgent = memoize((ua: string) => new UAParser(ua).getResult());

export function parseTechnology(ua: string, hints: ClientHints): Technology {
  const r = parseUserAgent(ua);
  const type = r.device.type;
  let device: Technology['device'] = type === 'mobile' ? 'mobile' : type === 'tablet' ? 'tablet' : type ? null : 'desktop';
  // Client hints are more truthful than a frozen UA string.
  if (hints.mobile === true) device = 'mobile';
  return {
    browser: browserFromHints(hints) ?? r.browser.name?.replace(/^Mobile /, '') ?? null,
    os: hints.os_name || r.os.name || null,
    device,
  };
}

/** Lowercased host of a referrer URL without `www.`, or null when there is none. */
export function referrerHost(referrer: string | null): string | null {
  if (!referrer) return null;
  try {
    const url = new URL(referrer.includes('://') ? referrer : `https://${referrer}`);
    return url.hostname.toLowerCase().replace(/^www\./, '').replace(/\.$/, '') || null;
  } catch {
    return null;
  }
}

export interface Campaign {
  utm_source: string | null;
  campaign_source: string | null;
  campaign_ref: string | null;
}

const bareHost = (h: string) => h.toLowerCase().replace(/^www\./, '');

/** Navigation from the site itself (or its subdomains): not an acquisition. */
export function isInternalReferrer(host: string | null, site: string): boolean {
  if (!host) return false;
  const s = bareHost(site);
  return host === s || host.endsWith(`.${s}`);
}

/** Campaign tags win (utm_source, then ?source=, then ?ref=), then the referring host; internal navigation has none. */
export function deriveSource(campaign: Campaign, refHost: string | null, site: string): string | null {
  const tagged = campaign.utm_source ?? campaign.campaign_source ?? campaign.campaign_ref;
  if (tagged) return tagged.trim() || null;
  if (!refHost || isInternalReferrer(refHost, site)) return null;
  return refHost;
}
