/**
 * The live visitor stream (issue 39), as pure rules: its limits and cadence,
 * the per-minute history it opens with, its Server-Sent Events framing, and
 * its tickets (a short-lived, single-use credential for EventSource, which
 * cannot send an Authorization header).
 */
import { createHash, randomBytes } from 'node:crypto';
import { LIVE_PAGES_WINDOW_SECONDS, LIVE_WINDOW_SECONDS } from '#domain/reports/overview.ts';

export { LIVE_PAGES_WINDOW_SECONDS, LIVE_WINDOW_SECONDS };

/** An update every 5 s; a comment line every 15 s keeps proxies and load balancers from closing an idle stream. */
export const LIVE_UPDATE_MS = 5_000;
export const LIVE_HEARTBEAT_MS = 15_000;
/** The history a stream opens with: the last 15 minutes, per minute (the current minute last). */
export const LIVE_HISTORY_MINUTES = 15;
/** Open streams per account, across every instance. */
export const MAX_LIVE_STREAMS = 5;
/**
 * A stream ends by itself after this long, under Lambda's 15-minute limit; a
 * client opens a new one (the dashboard does, with a new ticket).
 */
export const LIVE_STREAM_MAX_MS = 14 * 60_000 + 30_000;
/** A ticket is good for one stream, within a minute of being issued. */
export const LIVE_TICKET_TTL_SECONDS = 60;
/**
 * A stream's hold on one of its account's slots lasts this long and is
 * renewed with every heartbeat, so a stream whose instance died frees its
 * slot within a minute.
 */
export const LIVE_SLOT_LEASE_SECONDS = 60;
/** How often a stream sends what, and how long it lasts. */
export interface LiveCadence {
  updateMs: number;
  heartbeatMs: number;
  maxMs: number;
}

export const LIVE_CADENCE: LiveCadence = { updateMs: LIVE_UPDATE_MS, heartbeatMs: LIVE_HEARTBEAT_MS, maxMs: LIVE_STREAM_MAX_MS };

/** Rows in each live list. */
export const LIVE_LIST_LIMIT = 10;
/** How long EventSource waits before it reconnects by itself after a dropped connection. */
export const LIVE_RETRY_MS = 5_000;

const MINUTE_MS = 60_000;

export interface LiveMinute {
  /** The minute's start, Unix seconds. */
  t: number;
  visitors: number;
  pageviews: number;
}

export interface LiveCount {
  name: string;
  visitors: number;
}

export interface LiveUpdate {
  /** When it was read, Unix seconds. */
  t: number;
  /** Distinct visitors in the last 5 minutes. */
  visitors_5m: number;
  /** The last 30 minutes, by distinct visitors. */
  pages: LiveCount[];
  sources: LiveCount[];
  countries: LiveCount[];
  /** The previous and the current minute, as the history counts them: a client replaces those of its history. */
  minutes: LiveMinute[];
}

/**
 * Bucket boundaries (Unix ms) of the last `minutes` minutes, the current
 * minute last; the last boundary is just past `nowMs`, so the current
 * minute counts what arrived up to now.
 */
export function minuteBoundaries(nowMs: number, minutes: number): number[] {
  const current = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  const starts = Array.from({ length: minutes }, (_, i) => current - (minutes - 1 - i) * MINUTE_MS);
  return [...starts, nowMs + 1];
}

/** One entry per minute of `boundaries`, zero where nothing was counted. */
export function perMinute(boundaries: readonly number[], rows: readonly { bucket: number | null; visitors: number; pageviews: number }[]): LiveMinute[] {
  const byBucket = new Map(rows.filter((r) => r.bucket !== null).map((r) => [r.bucket as number, r]));
  return boundaries.slice(0, -1).map((start, i) => {
    const row = byBucket.get(i);
    return { t: start / 1000, visitors: row?.visitors ?? 0, pageviews: row?.pageviews ?? 0 };
  });
}

/** One Server-Sent Event: its name and its data as one JSON line. */
export const sseEvent = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
/** A comment line: clients ignore it; it only keeps the connection in use. */
export const SSE_HEARTBEAT = ': heartbeat\n\n';
/** The stream's first line: how long EventSource waits before reconnecting by itself. */
export const SSE_RETRY = `retry: ${LIVE_RETRY_MS}\n\n`;

/** A new ticket: 32 random bytes, base64url. Only its hash is stored. */
export const newLiveTicket = (): string => randomBytes(32).toString('base64url');
export const ticketHash = (ticket: string): string => createHash('sha256').update(ticket).digest('hex');
/** A string that could be a ticket (anything else is not looked up). */
export const isTicketFormat = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);
