/**
 * What an hourly sync reads and stores (issue 41), pure: the window of hours
 * a link still needs, and Cloudflare's groups as crawler hits (humans left
 * out, each (hour, crawler, path) summed over its user agents and windows).
 */
import type { CrawlerHitRow } from '#ports/crawler-hits.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { ZoneRequestGroup } from '#ports/cloudflare.ts';
import { classifyUserAgent } from './classify.ts';

export const HOUR_MS = 3_600_000;
/** How far back the first sync reads, and the most any later one reads again. */
export const FIRST_SYNC_HOURS = 24;
export const MAX_SYNC_HOURS = 72;
/** Longest path stored: a longer one is cut (query strings are not part of clientRequestPath). */
const MAX_PATH = 512;

/**
 * [from, to) in ms: from where the last sync stopped (its last, still open hour read again) or a
 * day back, at most MAX_SYNC_HOURS back; to the end of the current hour.
 */
export function syncWindow(syncedThrough: number | null, nowMs: number): { from: number; to: number } {
  const current = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const earliest = current - (MAX_SYNC_HOURS - 1) * HOUR_MS;
  const from = syncedThrough === null ? current - (FIRST_SYNC_HOURS - 1) * HOUR_MS : Math.max(earliest, Math.min(syncedThrough, current));
  return { from, to: current + HOUR_MS };
}

export function crawlerHits(site: SiteRef, groups: readonly ZoneRequestGroup[]): CrawlerHitRow[] {
  const byKey = new Map<string, CrawlerHitRow>();
  for (const g of groups) {
    const crawler = classifyUserAgent(g.userAgent);
    if (!crawler || !Number.isFinite(g.hour) || g.count <= 0) continue;
    const hour = Math.floor(g.hour / HOUR_MS) * HOUR_MS;
    const path = (g.path || '/').slice(0, MAX_PATH);
    const key = JSON.stringify([hour, crawler.name, path]);
    const row = byKey.get(key);
    if (row) row.hits += g.count;
    else byKey.set(key, { ...site, hour, crawler: crawler.name, category: crawler.category, path, hits: g.count });
  }
  return [...byKey.values()];
}
