/**
 * The crawler sync (issue 41): for a link, the hours it still needs read from
 * its Cloudflare zone, classified and stored, and the outcome recorded on the
 * link (its time, and Cloudflare's error text or null). Started by
 * POST …/crawlers/sync, and hourly for every link (locally on the in-process
 * timers, on AWS by an EventBridge schedule: functions/aws/workers/crawler-sync.ts).
 */
import { crawlerHits, HOUR_MS, syncWindow } from '#domain/crawlers/sync-plan.ts';
import type { Clock } from '#ports/clock.ts';
import { CloudflareError, type CloudflareClient } from '#ports/cloudflare.ts';
import type { CrawlerHitStore } from '#ports/crawler-hits.ts';
import type { CrawlerLinkRecord, CrawlerLinks, CrawlerSyncResult } from '#ports/crawler-links.ts';
import type { SecretBox, SecretContext } from '#ports/secret-box.ts';
import type { ScheduledJob } from '#ports/scheduler.ts';
import { log } from '#platform/log.ts';

export interface CrawlerSyncDeps {
  crawlerLinks: CrawlerLinks;
  crawlerHits: CrawlerHitStore;
  cloudflare: CloudflareClient;
  secrets: SecretBox;
  clock: Clock;
}

/** What a link's sealed token is bound to: a token sealed for one registration opens for no other. */
export const crawlerTokenContext = (link: Pick<CrawlerLinkRecord, 'site' | 'registration'>): SecretContext => ({ purpose: 'crawlers', site: link.site, registration: link.registration });

/** The text recorded when a sync fails for a reason of ours (logged in full, never answered). */
export const SYNC_FAILED = 'sync failed; it is tried again within the hour';

/** Syncs one link and records the outcome; never throws for Cloudflare's or the store's failures. */
export async function syncCrawlerLink(deps: CrawlerSyncDeps, link: CrawlerLinkRecord): Promise<CrawlerSyncResult> {
  const now = deps.clock.now().getTime();
  const { from, to } = syncWindow(link.synced_through, now);
  let result: CrawlerSyncResult;
  try {
    const token = await deps.secrets.open(link.sealed_token, crawlerTokenContext(link));
    const groups = await deps.cloudflare.zoneRequests(token, link.zone_id, from, to);
    await deps.crawlerHits.saveCrawlerHits(crawlerHits(link, groups));
    result = { last_sync_at: new Date(now).toISOString(), last_error: null, synced_through: to - HOUR_MS };
  } catch (e) {
    if (!(e instanceof CloudflareError)) log.error('crawler sync failed', { site: link.site, message: (e as Error).message });
    result = { last_sync_at: new Date(now).toISOString(), last_error: e instanceof CloudflareError ? e.message : SYNC_FAILED, synced_through: link.synced_through };
  }
  await deps.crawlerLinks.recordSync(link.site, link.zone_id, result);
  return result;
}

/** The hourly job (the local scheduler; on AWS the EventBridge rule's worker runs syncAllCrawlerLinks). */
export const crawlerSyncJob = (deps: CrawlerSyncDeps): ScheduledJob => ({ name: 'crawler-sync', everyMinutes: 60, run: async () => void (await syncAllCrawlerLinks(deps)) });

/** Every link, one after another (Cloudflare rate-limits per token and account). */
export async function syncAllCrawlerLinks(deps: CrawlerSyncDeps): Promise<number> {
  const links = await deps.crawlerLinks.list();
  for (const link of links) await syncCrawlerLink(deps, link);
  return links.length;
}
