/**
 * The Search Console sync's budget: with a deadline it stops starting
 * windows once the deadline passes, records how far it got, and the next
 * call resumes there; a failure keeps the windows stored before it. Google,
 * the registry and the store are in-memory stand-ins: what is tested is the
 * order of the sync's steps (the HTTP route over the fake Google is tested in
 * test/integration/search-console.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { syncWindows } from '#domain/search-console/search-console.ts';
import type { GoogleSearchClient, SearchLinkRecord, SearchStatsStore } from '#ports/search-console.ts';
import { syncSearchLink, type SearchSyncServices } from '#workers/search-console-sync.ts';

const TODAY = '2026-11-29';

function services({ failOnWindow = -1 } = {}) {
  let now = Date.parse(`${TODAY}T08:00:00Z`);
  const windowsQueried: string[] = [];
  let link: SearchLinkRecord = { site: 'gsc.example', owner_uid: 'u', property: 'https://gsc.example/', sealed_refresh_token: 'sealed', linked_at: '', last_sync_at: null, last_error: null, synced_through: null };
  const google = {
    accessToken: async () => 'access',
    // Each query takes a second of the clock; the totals row of a window is its first query.
    query: async (_t: string, _p: string, body: { startDate: string; dimensions: string[] }) => {
      now += 1_000;
      if (body.dimensions.length === 1) windowsQueried.push(body.startDate);
      if (windowsQueried.length - 1 === failOnWindow) throw new Error('boom');
      return [];
    },
  } as unknown as GoogleSearchClient;
  const s: SearchSyncServices = {
    registry: {
      getSite: async () => ({ hostname: 'gsc.example', owner_uid: 'u' }) as never,
      searchConsole: { updateLink: async (_site: string, patch: Partial<SearchLinkRecord>) => ((link = { ...link, ...patch }), true) } as never,
    },
    google,
    secrets: { open: async () => 'refresh', seal: async () => '' } as never,
    stats: { saveSearchRows: async () => undefined } as unknown as SearchStatsStore,
    clock: { now: () => new Date(now) },
    log: { warn: () => undefined, info: () => undefined },
  };
  return { s, windowsQueried, link: () => link, now: () => now };
}

describe('the Search Console sync within a deadline', () => {
  it('stops starting windows after the deadline, records its progress, and the next call resumes and completes', async () => {
    const all = syncWindows(null, TODAY);
    const t = services();
    // Five queries a window, a second each: a 12 s budget starts three windows.
    const first = await syncSearchLink(t.s, t.link(), { deadline: t.now() + 12_000 });
    expect([first.complete, first.link.synced_through, t.windowsQueried.length]).toEqual([false, all[2]?.endDate, 3]);
    const rest = await syncSearchLink(t.s, t.link());
    expect([rest.complete, rest.link.synced_through, rest.link.last_error]).toEqual([true, all.at(-1)?.endDate, null]);
    // Resumed two days before where it stopped (Google's recent days move), never from the start again.
    expect(t.windowsQueried[3]).toBe(syncWindows(all[2]?.endDate ?? null, TODAY)[0]?.startDate);
  });

  it('always stores at least one window, even past the deadline', async () => {
    const t = services();
    const r = await syncSearchLink(t.s, t.link(), { deadline: 0 });
    expect([r.complete, t.windowsQueried.length]).toEqual([false, 1]);
  });

  it('keeps the windows stored before a failure', async () => {
    const all = syncWindows(null, TODAY);
    const t = services({ failOnWindow: 2 });
    await expect(syncSearchLink(t.s, t.link())).rejects.toThrow('Google did not answer');
    expect([t.link().synced_through, t.link().last_error]).toEqual([all[1]?.endDate, 'Google did not answer, retry later']);
  });
});
