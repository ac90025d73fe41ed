/**
 * Test support: a stand-in for the Simple Analytics Export API. Same path,
 * query and headers as the real one; answers CSV with a header row and
 * exactly the requested `fields`, quoting values with commas, quotes or
 * newlines. Data is per source hostname; a hook can replace any answer with
 * a failure (status and body, delay, a connection that hangs or is cut,
 * malformed CSV). Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { EXPORT_FIELDS } from '#domain/imports/export-row.ts';

export interface SaDatapoint {
  /** Unix seconds. */
  added_unix: number;
  uuid: string;
  path: string;
  is_unique?: boolean;
  is_robot?: boolean;
  document_referrer?: string;
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
  duration_seconds?: number;
  scrolled_percentage?: number;
  viewport_width?: number;
  viewport_height?: number;
  screen_width?: number;
  screen_height?: number;
  device_type?: string;
  country_code?: string;
  browser_name?: string;
  os_name?: string;
  lang_language?: string;
  /** Events: the event name. */
  datapoint?: string;
  query?: string;
}

export interface SaDataset {
  pageviews: SaDatapoint[];
  events: SaDatapoint[];
}

export interface SaRequest {
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  at: number;
}

export interface SaAnswer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Never answers (until the server closes or the client gives up). */
  hang?: boolean;
  /** Cuts the connection without an answer. */
  destroy?: boolean;
}

export interface FakeSimpleAnalytics {
  url: string;
  requests: SaRequest[];
  /** Export requests (not credential tests) for one source hostname and type. */
  exports(hostname: string, type?: 'pageviews' | 'events'): SaRequest[];
  setData(hostname: string, data: SaDataset): void;
  /** Decides answers; return undefined for the normal export. */
  on(hook: ((req: SaRequest) => SaAnswer | undefined | Promise<SaAnswer | undefined>) | null): void;
  /** Builds (and caches) every chunk's CSV of a hostname now, so timing runs measure the importer, not this server. */
  warm(hostname: string, chunks: { type: 'pageviews' | 'events'; start: string; end: string }[]): void;
  close(): Promise<void>;
}

/** One CSV value: quoted when it holds a comma, quote, CR or LF. */
export function csvValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(fields: readonly string[], rows: readonly SaDatapoint[]): string {
  const lines = [fields.join(',')];
  for (const row of rows) lines.push(fields.map((f) => csvValue((row as unknown as Record<string, unknown>)[f])).join(','));
  return `${lines.join('\n')}\n`;
}

/** A key shaped like Simple Analytics' own: `sa_api_key_` and 36 alphanumerics. */
export const PLAUSIBLE_API_KEY = 'sa_api_key_4Fq9ZkT2mWc8RbN1xLp7VdJ3sHy6GtA0uEo5';

/** An answer that echoes `key` after `offset` characters (of a filler no key contains), with more text after it. */
export const echoAt = (key: string, offset: number): string => `${'.'.repeat(offset)}${key}${' ...'.repeat(60)}`;

/** The first piece of `key` of `min` or more characters that `text` contains, or null. */
export function leakedPart(text: string, key: string, min = 8): string | null {
  for (let i = 0; i + min <= key.length; i++) {
    const piece = key.slice(i, i + min);
    if (text.includes(piece)) return piece;
  }
  return null;
}

/** tinytrack's credential test asks for two fields of one day. */
export const isCredentialTest = (r: SaRequest): boolean => r.query.fields === 'added_unix,uuid';

const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`) / 1000;

/** Index of the first row with added_unix ≥ t (rows sorted by time). */
function lowerBound(rows: readonly SaDatapoint[], t: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((rows[mid] as SaDatapoint).added_unix < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export async function startFakeSimpleAnalytics(): Promise<FakeSimpleAnalytics> {
  const requests: SaRequest[] = [];
  const data = new Map<string, SaDataset>();
  const cache = new Map<string, string>();
  const sockets = new Set<Socket>();
  let hook: ((req: SaRequest) => SaAnswer | undefined | Promise<SaAnswer | undefined>) | null = null;

  const exportCsv = (q: Record<string, string>): string => {
    const fields = (q.fields ?? '').split(',').filter(Boolean);
    const type = q.type === 'events' ? 'events' : 'pageviews';
    const key = `${q.hostname}|${type}|${q.start}|${q.end}|${q.fields}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const rows = data.get(q.hostname ?? '')?.[type] ?? [];
    const from = lowerBound(rows, dayStart(q.start ?? ''));
    const to = lowerBound(rows, dayStart(q.end ?? '') + 86_400);
    const csv = toCsv(fields, rows.slice(from, to));
    cache.set(key, csv);
    return csv;
  };

  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://sa.local');
    const info: SaRequest = { path: u.pathname, query: Object.fromEntries(u.searchParams), headers: req.headers, at: Date.now() };
    requests.push(info);
    let answer: SaAnswer | undefined;
    try {
      answer = hook ? await hook(info) : undefined;
    } catch {
      answer = { status: 500, body: 'fake hook failed' };
    }
    if (answer?.hang) return;
    if (answer?.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer?.destroy) {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    if (answer) {
      res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain; charset=utf-8', ...(answer.headers ?? {}) });
      res.end(answer.body ?? '');
      return;
    }
    if (info.path !== '/api/export/datapoints') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    res.end(exportCsv(info.query));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    exports: (hostname, type) =>
      requests.filter((r) => r.query.hostname === hostname && !isCredentialTest(r) && (!type || r.query.type === type)),
    setData(hostname, dataset) {
      const byTime = (a: SaDatapoint, b: SaDatapoint) => a.added_unix - b.added_unix;
      data.set(hostname, { pageviews: [...dataset.pageviews].sort(byTime), events: [...dataset.events].sort(byTime) });
      for (const key of cache.keys()) if (key.startsWith(`${hostname}|`)) cache.delete(key);
    },
    on(fn) {
      hook = fn;
    },
    warm(hostname, chunks) {
      for (const c of chunks) {
        const fields = c.type === 'pageviews' ? PAGEVIEW_FIELDS : EVENT_FIELDS;
        exportCsv({ hostname, type: c.type, start: c.start, end: c.end, fields: fields.join(',') });
      }
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

/** The fields tinytrack asks for, for warm(). */
const PAGEVIEW_FIELDS = EXPORT_FIELDS.pageviews;
const EVENT_FIELDS = EXPORT_FIELDS.events;

const PATHS = ['/', '/pricing', '/blog', '/blog/hello, world', '/docs/getting-started', '/about', '/contact', '/blog/"quoted"', '/changelog', '/careers'];
const REFERRERS = ['', '', 'https://www.google.com/', 'https://news.ycombinator.com/item?id=1', 'https://t.co/x', 'https://duckduckgo.com/'];
const DEVICES = ['desktop', 'mobile', 'tablet'];
const COUNTRIES = ['NL', 'DE', 'US', 'GB', 'FR'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const EVENTS = ['signup', 'download pdf', 'click: buy now', 'newsletter'];

/**
 * A deterministic dataset: `pageviews` page views and `events` events spread
 * evenly over [start, end] (inclusive days), some robots, some with
 * multi-line referrers and quoted paths.
 */
export function generateDataset(start: string, end: string, pageviews: number, events: number, seed = 1): SaDataset {
  let state = seed >>> 0 || 1;
  const rand = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const from = dayStart(start);
  const span = dayStart(end) + 86_400 - from;
  const at = (i: number, n: number) => from + Math.floor(((i + 0.5) / n) * span);
  const pv: SaDatapoint[] = Array.from({ length: pageviews }, (_, i) => ({
    added_unix: at(i, pageviews),
    uuid: randomUUID(),
    path: pick(PATHS),
    is_unique: rand() < 0.6,
    is_robot: rand() < 0.02,
    document_referrer: i % 997 === 0 ? 'https://example.org/a\nmulti-line, "referrer"' : pick(REFERRERS),
    utm_source: i % 50 === 0 ? 'newsletter' : undefined,
    duration_seconds: Math.floor(rand() * 300),
    scrolled_percentage: Math.floor(rand() * 101),
    viewport_width: 1280,
    viewport_height: 720,
    screen_width: 1920,
    screen_height: 1080,
    device_type: pick(DEVICES),
    country_code: pick(COUNTRIES),
    browser_name: pick(BROWSERS),
    os_name: 'Mac OS X',
    lang_language: 'English',
  }));
  const ev: SaDatapoint[] = Array.from({ length: events }, (_, i) => ({
    added_unix: at(i, events),
    uuid: randomUUID(),
    path: pick(PATHS),
    datapoint: pick(EVENTS),
    is_robot: false,
    device_type: pick(DEVICES),
    country_code: pick(COUNTRIES),
    browser_name: pick(BROWSERS),
  }));
  return { pageviews: pv, events: ev };
}
