/**
 * Pure enrichment of a collected beacon: event names and metadata (spec part 6
 * rules 3–4), visitor hash, country from the timezone, user agent and client
 * hints, acquisition source.
 */
import { hash } from 'node:crypto';
import { getCountryForTimezone } from 'countries-and-timezones';
import { isbot } from 'isbot';
import UAParser from 'ua-parser-js';
import { browserFromBrands, browserFromHints, type BrowserHints } from './client-hints.ts';
import { browserName, osName } from './tech-names.ts';
import { hostSource, tagSource } from './source-name.ts';

export const MAX_METADATA_CHARS = 4096;

/** At most 4,096 characters of serialized JSON are kept; longer data is cut and may no longer parse. */
export function serializeMetadata(metadata: Record<string, unknown> | null): string | null {
  if (!metadata) return null;
  return JSON.stringify(metadata).slice(0, MAX_METADATA_CHARS);
}

// The collector keeps the last day it computed (caches.ts).

/** hash(UTC day, site, IP, UA, daily salt): one visitor per day per site, unlinkable once the salt is gone. */
export function visitorHash(day: string, site: string, ip: string, ua: string, salt: string): string {
  // The one-shot hash: half the cost of createHash().update().digest() per beacon.
  return hash('sha256', `${day}\n${site}\n${ip}\n${ua}\n${salt}`, 'hex').slice(0, 32);
}

/** The country of an IANA zone, or null (the collector caches it per zone: caches.ts). */
export function countryFromTimezone(timezone: string | null): string | null {
  if (!timezone) return null;
  try {
    return getCountryForTimezone(timezone)?.id ?? null;
  } catch {
    return null;
  }
}

/** An empty user agent is a bot too. */
export const isBotUserAgent = (ua: string): boolean => ua.trim() === '' || isbot(ua);

export interface ClientHints extends BrowserHints {
  mobile: boolean | null;
  os_name: string | null;
}

export interface Technology {
  browser: string | null;
  os: string | null;
  device: 'desktop' | 'mobile' | 'tablet' | null;
}

/** What one user agent string says, whatever the client hints: its technology and whether it is a bot. */
export interface Agent extends Technology {
  bot: boolean;
}

/** The user-agent reading of a beacon (the collector caches it per string: caches.ts). */
export function readAgent(ua: string): Agent {
  const r = new UAParser(ua).getResult();
  const type = r.device.type;
  return {
    browser: browserName(r.browser.name),
    os: osName(r.os.name),
    device: type === 'mobile' ? 'mobile' : type === 'tablet' ? 'tablet' : type ? null : 'desktop',
    bot: isBotUserAgent(ua),
  };
}

/** The user agent's technology corrected by client hints, which are more truthful than a frozen UA string; one name per browser and OS (tech-names.ts). */
export function technology(agent: Technology, hints: ClientHints, ofBrands: (brands: string) => string | null = browserFromBrands): Technology {
  return {
    browser: browserName(browserFromHints(hints, ofBrands)) ?? agent.browser,
    os: osName(hints.os_name) ?? agent.os,
    device: hints.mobile === true ? 'mobile' : agent.device,
  };
}

export const parseTechnology = (ua: string, hints: ClientHints): Technology => technology(readAgent(ua), hints);

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

/**
 * Campaign tags win (utm_source, then ?source=, then ?ref=), then the referring host; internal
 * navigation has none. Either is named by the maintained referrer list (source-name.ts:
 * `google`, `google.com` and `google.de` are all `Google`); unknown ones stay as they are.
 * Collected and imported rows take their source from here alone.
 */
export function deriveSource(campaign: Campaign, refHost: string | null, site: string): string | null {
  const tagged = campaign.utm_source ?? campaign.campaign_source ?? campaign.campaign_ref;
  if (tagged) {
    const tag = tagged.trim();
    return tag ? tagSource(tag) : null;
  }
  if (!refHost || isInternalReferrer(refHost, site)) return null;
  return hostSource(refHost);
}
