/**
 * Search Console sync (issue 41): for a linked site, the days since the last
 * sync (the last three again, as Google's figures still move; the first
 * time 16 months) in windows of a month, each stored dimension of each
 * window paged by `startRow` until a short page. The link records the
 * sync's time and its error text; `synced_through` moves past a window only
 * once all of it was stored, so a failed sync resumes where it failed. Run by
 * `POST …/gsc/sync` (within a time budget: the windows left wait for the
 * next call, as an API Gateway request ends at 30 s) and daily (the local
 * timers; EventBridge on AWS, with 15 minutes).
 */
import { ProductError, GoogleUnavailableError } from '#domain/errors.ts';
import { registrationOf } from '#domain/registration.ts';
import { dayOf, GOOGLE_DIMENSION, SEARCH_ROW_LIMIT, searchRowsOf, syncWindows } from '#domain/search-console/search-console.ts';
import type { Clock } from '#ports/clock.ts';
import type { Registry } from '#ports/registry.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { searchConsoleContext, type GoogleSearchClient, type SearchLinkRecord, type SearchStatsStore, type StoredSearchDim } from '#ports/search-console.ts';
import type { SecretBox } from '#ports/secret-box.ts';

export interface SearchSyncServices {
  registry: Pick<Registry, 'searchConsole' | 'getSite'>;
  google: GoogleSearchClient;
  secrets: SecretBox;
  stats: SearchStatsStore;
  clock: Clock;
  log: { warn(message: string, fields?: Record<string, unknown>): void; info(message: string, fields?: Record<string, unknown>): void };
}

const DIMS: readonly StoredSearchDim[] = ['total', 'queries', 'pages', 'countries', 'devices'];

/** Every page of one window and dimension, stored as it comes. */
async function pullDimension(s: SearchSyncServices, ref: SiteRef, token: string, property: string, window: { startDate: string; endDate: string }, dim: StoredSearchDim): Promise<void> {
  const google = GOOGLE_DIMENSION[dim];
  const dimensions = google ? ['date', google] : ['date'];
  for (let startRow = 0; ; startRow += SEARCH_ROW_LIMIT) {
    const rows = await s.google.query(token, property, { ...window, dimensions, rowLimit: SEARCH_ROW_LIMIT, startRow });
    await s.stats.saveSearchRows(ref, searchRowsOf(dim, rows));
    if (rows.length < SEARCH_ROW_LIMIT) return;
  }
}

/** The refusal a failed sync records and answers; anything unexpected is Google's side being unavailable, logged without detail. */
function refusalOf(e: unknown, site: string, log: SearchSyncServices['log']): ProductError {
  if (e instanceof ProductError) return e;
  log.warn('search console sync failed', { site, error: (e as Error)?.name ?? 'unknown' });
  return new GoogleUnavailableError();
}

/** A sync's outcome: the link as recorded after, and whether every window up to yesterday is stored. */
export interface SearchSyncResult {
  link: SearchLinkRecord;
  complete: boolean;
}

/**
 * Syncs one link, oldest window first, recording progress after each window. With `deadline`
 * (epoch ms) no window starts after it, and the sync answers incomplete. A failure is recorded
 * on the link (the windows stored before it kept) and thrown as its refusal.
 */
export async function syncSearchLink(s: SearchSyncServices, link: SearchLinkRecord, { deadline = Infinity }: { deadline?: number } = {}): Promise<SearchSyncResult> {
  const now = s.clock.now();
  const at = now.toISOString();
  const site = await s.registry.getSite(link.site);
  if (!site || !link.property) return { link, complete: true };
  const ref: SiteRef = { site: site.hostname, registration: registrationOf(site) };
  const windows = syncWindows(link.synced_through, dayOf(now.getTime()));
  let syncedThrough = link.synced_through;
  let stored = 0;
  try {
    const refreshToken = await s.secrets.open(link.sealed_refresh_token, searchConsoleContext(link.site));
    const token = await s.google.accessToken(refreshToken);
    for (const window of windows) {
      if (stored > 0 && s.clock.now().getTime() >= deadline) break;
      for (const dim of DIMS) await pullDimension(s, ref, token, link.property, window, dim);
      syncedThrough = window.endDate;
      stored++;
    }
  } catch (e) {
    const refusal = refusalOf(e, link.site, s.log);
    await s.registry.searchConsole.updateLink(link.site, { last_sync_at: at, last_error: refusal.message, synced_through: syncedThrough });
    throw refusal;
  }
  const patch = { last_sync_at: at, last_error: null, synced_through: syncedThrough };
  await s.registry.searchConsole.updateLink(link.site, patch);
  return { link: { ...link, ...patch }, complete: stored === windows.length };
}

/** The daily run: every linked site, one after another; one failing link never stops the others. */
export async function syncAllSearchLinks(s: SearchSyncServices): Promise<{ synced: number; failed: number }> {
  let synced = 0;
  let failed = 0;
  for (const link of await s.registry.searchConsole.listLinks()) {
    try {
      await syncSearchLink(s, link);
      synced++;
    } catch {
      failed++;
    }
  }
  s.log.info('search console sync', { synced, failed });
  return { synced, failed };
}

/** The daily job's name and period: 00:00 UTC, when Google's day before is as complete as it gets that day. */
export const SEARCH_SYNC_JOB = { name: 'search-console-sync', everyMinutes: 24 * 60 } as const;

/** The scheduled job's run over the services (the local timers; the AWS schedule's worker). */
export const createSearchSyncer = (s: SearchSyncServices) => async (): Promise<void> => {
  await syncAllSearchLinks(s);
};
