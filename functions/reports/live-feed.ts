/**
 * The live stream's reads and its run (issue 39): the per-minute history a
 * stream opens with, the update it sends every few seconds, and the loop
 * that sends them on injected timers until the client goes away, the stream
 * reaches its time limit, or its slot is lost. When it ends, every timer is
 * cleared, no further read starts, and its slot is given back.
 */
import {
  LIVE_CADENCE,
  LIVE_HISTORY_MINUTES,
  LIVE_LIST_LIMIT,
  LIVE_PAGES_WINDOW_SECONDS,
  LIVE_SLOT_LEASE_SECONDS,
  LIVE_WINDOW_SECONDS,
  minuteBoundaries,
  perMinute,
  SSE_HEARTBEAT,
  SSE_RETRY,
  sseEvent,
  type LiveCadence,
  type LiveMinute,
  type LiveUpdate,
} from '#domain/live/live-stream.ts';
import type { Clock } from '#ports/clock.ts';
import type { LiveStreams } from '#ports/live-streams.ts';
import type { Logger } from '#ports/logger.ts';
import type { ReportStore, SiteRef } from '#ports/report-store.ts';
import type { Timers } from '#ports/scheduler.ts';
import { withGoalWindow, type FilterClause } from '#domain/reports/filter.ts';

/** What a stream follows: the site's rows, under the report's filters (the `filter` parameter; none by default). */
export interface LiveSubject extends SiteRef {
  filters?: readonly FilterClause[];
}

/** The site of a subject, and its filters for a read of [from, to) ms (goal and event clauses find their visitors there). */
function partsOf(subject: LiveSubject, from: number, to: number) {
  const site = { site: subject.site, registration: subject.registration };
  return { site, filters: withGoalWindow(subject.filters ?? [], [site], from, to) };
}

async function minutes(store: ReportStore, subject: LiveSubject, nowMs: number, count: number): Promise<LiveMinute[]> {
  const boundaries = minuteBoundaries(nowMs, count);
  const { site, filters } = partsOf(subject, boundaries[0] as number, boundaries[boundaries.length - 1] as number);
  return perMinute(boundaries, await store.traffic({ sites: [site], boundaries, filters }));
}

/** The last 15 minutes, per minute, the current one last. */
export const liveHistory = (store: ReportStore, subject: LiveSubject, nowMs: number): Promise<LiveMinute[]> => minutes(store, subject, nowMs, LIVE_HISTORY_MINUTES);

const byVisitors = (rows: readonly { name: string; visitors: number }[]) =>
  rows
    .map(({ name, visitors }) => ({ name, visitors }))
    .sort((a, b) => b.visitors - a.visitors || a.name.localeCompare(b.name))
    .slice(0, LIVE_LIST_LIMIT);

/** Visitors of the last 5 minutes; pages, sources and countries of the last 30 by distinct visitors; the last two minutes (read here unless given). */
export async function liveUpdate(store: ReportStore, subject: LiveSubject, nowMs: number, recentMinutes?: Promise<LiveMinute[]>): Promise<LiveUpdate> {
  const since = nowMs - LIVE_PAGES_WINDOW_SECONDS * 1000;
  const { site, filters } = partsOf(subject, since, nowMs + 1);
  const liveSince = nowMs - LIVE_WINDOW_SECONDS * 1000;
  const [visitors, pages, lists, recent] = await Promise.all([
    store.liveVisitors([site], liveSince, partsOf(subject, liveSince, nowMs + 1).filters),
    store.livePages({ ...site, filters, since }, LIVE_LIST_LIMIT),
    // Lists ranked by pageviews: more rows than shown, then ranked by visitors.
    store.breakdowns({ ...site, from: since, to: nowMs + 1, filters }, ['sources', 'countries'] as const, LIVE_LIST_LIMIT * 5),
    recentMinutes ?? minutes(store, subject, nowMs, 2),
  ]);
  return {
    t: Math.floor(nowMs / 1000),
    visitors_5m: visitors.get(site.site) ?? 0,
    pages: byVisitors(pages),
    sources: byVisitors(lists.sources),
    countries: byVisitors(lists.countries),
    minutes: recent,
  };
}

/** Where a stream writes; `closed` is aborted when the client goes away. */
export interface EventSink {
  write(chunk: string): void;
  readonly closed: AbortSignal;
}

/** The account's slot a stream holds (LiveStreams.claimSlot). */
export interface SlotHold {
  uid: string;
  slot: number;
  stream: string;
}

export interface LiveFeedDeps {
  reports: ReportStore;
  live: LiveStreams;
  clock: Clock;
  timers: Timers;
  log: Logger;
}

/** What a stream opens with, read before it is answered (so a failed read is an HTTP error, not a stream that ends at once). */
export interface LiveOpening {
  history: LiveMinute[];
  update: LiveUpdate;
}

/** The history, and the first update, whose last two minutes are the history's own (read once). */
export async function liveOpening(store: ReportStore, subject: LiveSubject, nowMs: number): Promise<LiveOpening> {
  const history = liveHistory(store, subject, nowMs);
  const [minutesRead, update] = await Promise.all([history, liveUpdate(store, subject, nowMs, history.then((h) => h.slice(-2)))]);
  return { history: minutesRead, update };
}

/**
 * Sends the opening (history, then the first update), then an update every
 * `updateMs`, and a heartbeat every
 * `heartbeatMs` (which also renews the slot). Resolves once the stream has
 * ended and its slot is free.
 */
export function runLiveStream(
  deps: LiveFeedDeps,
  hold: SlotHold,
  site: LiveSubject,
  opening: LiveOpening,
  sink: EventSink,
  cadence: LiveCadence = LIVE_CADENCE,
): Promise<void> {
  const pending = new Set<unknown>();
  const nowMs = () => deps.clock.now().getTime();
  let ended = false;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));

  const end = () => {
    if (ended) return;
    ended = true;
    for (const timer of pending) deps.timers.clear(timer);
    pending.clear();
    sink.closed.removeEventListener('abort', end);
    deps.live
      .releaseSlot(hold.uid, hold.slot, hold.stream)
      .catch((e: unknown) => deps.log.warn('live stream slot not released (its lease runs out)', { message: (e as Error).message }))
      .finally(finished);
  };
  const fail = (e: unknown) => {
    deps.log.warn('live stream ended by a failed read', { message: (e as Error).message });
    end();
  };
  const send = (chunk: string) => {
    if (!ended) sink.write(chunk);
  };
  const later = (run: () => Promise<void>, ms: number) => {
    if (ended) return;
    const timer = deps.timers.set(() => {
      pending.delete(timer);
      run().catch(fail);
    }, ms);
    pending.add(timer);
  };
  // Every `updateMs` from the start of the previous read (not its end), so a slow read does not delay what follows.
  const update = async () => {
    const started = nowMs();
    const body = await liveUpdate(deps.reports, site, started);
    send(sseEvent('update', body));
    later(update, Math.max(0, cadence.updateMs - (nowMs() - started)));
  };
  const heartbeat = async () => {
    send(SSE_HEARTBEAT);
    const until = Math.floor(nowMs() / 1000) + LIVE_SLOT_LEASE_SECONDS;
    if (!ended && !(await deps.live.renewSlot(hold.uid, hold.slot, hold.stream, until))) return end();
    later(heartbeat, cadence.heartbeatMs);
  };
  const timeUp = async () => {
    send(sseEvent('end', { reason: 'time limit', reconnect: true }));
    end();
  };

  sink.closed.addEventListener('abort', end);
  if (sink.closed.aborted) {
    end();
    return done;
  }
  send(SSE_RETRY + sseEvent('history', opening.history) + sseEvent('update', opening.update));
  later(update, cadence.updateMs);
  later(heartbeat, cadence.heartbeatMs);
  later(timeUp, cadence.maxMs);
  return done;
}
