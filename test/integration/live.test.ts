/**
 * The live visitor stream over HTTP (issue 39): the real handlers on
 * dynalite and DuckDB, beacons through the collector, the stream read as
 * Server-Sent Events. Its timers are Node's, recorded, so a test can see
 * that a closed stream leaves none; its reads are counted the same way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { startTestService, type TestService } from '../support/local-node.ts';
import { openSse, type SseStream } from '../support/sse.ts';
import { systemTimers } from '#workers/rotate-salts.ts';
import type { Timers } from '#ports/scheduler.ts';
import type { ReportStore } from '#ports/report-store.ts';
import { LiveStreamLimitError } from '#domain/errors.ts';
import { LIVE_CADENCE, MAX_LIVE_STREAMS } from '#domain/live/live-stream.ts';

/** Node's timers, with the ones still pending listed. */
function recordedTimers(): Timers & { pending: Set<unknown> } {
  const pending = new Set<unknown>();
  return {
    pending,
    set(run, ms) {
      const timer = systemTimers.set(() => {
        pending.delete(timer);
        run();
      }, ms);
      pending.add(timer);
      return timer;
    },
    clear(timer) {
      pending.delete(timer);
      systemTimers.clear(timer);
    },
  };
}

const timers = recordedTimers();
let svc: TestService;
let owner: string;
let site: string;
let readsInFlight = 0;
let readsStarted = 0;
const streams: SseStream[] = [];

const ua = (n: number) => `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.${n}.0 Safari/537.36`;
async function pageview(hostname: string, visitor: number, path: string, extra: Record<string, unknown> = {}) {
  const r = await svc.req('POST', '/events', { raw: JSON.stringify({ hostname, path, ua: ua(visitor), timezone: 'Europe/Berlin', ...extra }), headers: { 'user-agent': ua(visitor) } });
  expect(r.text).toBe('ok');
}

async function open(hostname: string, headers: Record<string, string> = {}, query = ''): Promise<SseStream> {
  const s = await openSse(`${svc.url}/api/live/${hostname}${query}`, headers);
  streams.push(s);
  return s;
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const ticketFor = async (hostname: string, token = owner) => svc.req('POST', `/api/live/${hostname}/ticket`, { token });
/** How many of the account's stream slots are held now (read from the table). */
async function heldSlots(uid: string): Promise<number> {
  const doc = DynamoDBDocumentClient.from(svc.node.runtime.store);
  const r = await doc.send(new QueryCommand({ TableName: svc.node.services.config.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `LIVE#${uid}` } }));
  return (r.Items ?? []).filter((i) => Number(i.expires_at) > Date.now() / 1000).length;
}

/** Closes every stream a test opened and waits until their timers are gone and their slots free. */
async function closeAll() {
  for (const s of streams.splice(0)) s.close();
  await svc.until(async () => timers.pending.size + (await heldSlots('live-owner')), (n) => n === 0);
}

beforeAll(async () => {
  svc = await startTestService({}, { streamTimers: timers });
  owner = await svc.token('live-owner');
  site = await svc.site(owner, { prefix: 'live' });
  // Every report read the streams make, counted while it runs.
  const store = svc.node.services.reports;
  svc.node.services.reports = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        readsInFlight++;
        readsStarted++;
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          readsInFlight--;
        }
      };
    },
  }) as ReportStore;
});
afterEach(async () => {
  svc.node.services.liveCadence = undefined;
  await closeAll();
});
afterAll(() => svc.stop());

describe('GET /api/live/{hostname}', () => {
  it('opens with the last 15 minutes per minute, then shows beacons sent after it opened within 6 s', async () => {
    await pageview(site, 1, '/before');
    await svc.until(() => svc.req('GET', `/api/sites/${site}/overview`, { token: owner }), (r) => r.json.live === 1);
    const s = await open(site, bearer(owner));
    expect([s.status, s.headers.get('content-type'), s.headers.get('cache-control')]).toEqual([200, 'text/event-stream; charset=utf-8', 'no-store']);
    const history = (await s.next('history')).data as { t: number; visitors: number; pageviews: number }[];
    expect(history).toHaveLength(15);
    // Minute by minute, the current minute last (the one running when it was read).
    const last = (history.at(-1) as { t: number }).t;
    expect(history.map((m) => m.t)).toEqual(Array.from({ length: 15 }, (_, i) => last - (14 - i) * 60));
    expect(last % 60).toBe(0);
    expect(Date.now() / 1000 - last).toBeGreaterThanOrEqual(0);
    expect(Date.now() / 1000 - last).toBeLessThan(62);
    expect(history.reduce((n, m) => n + m.pageviews, 0)).toBe(1);
    expect(s.retry).toBe(5000);
    const first = (await s.next('update')).data;
    expect(first).toMatchObject({ visitors_5m: 1, pages: [{ name: '/before', visitors: 1 }] });

    const sent = performance.now();
    await pageview(site, 2, '/pricing', { referrer: 'https://news.ycombinator.com/item?id=1' });
    await pageview(site, 3, '/pricing');
    const seen = await s.next('update', (u) => u.visitors_5m === 3, 6_000);
    expect(seen.at - sent).toBeLessThan(6_000);
    expect(seen.data.pages).toEqual([
      { name: '/pricing', visitors: 2 },
      { name: '/before', visitors: 1 },
    ]);
    expect(seen.data.sources).toContainEqual({ name: 'Hacker News', visitors: 1 });
    expect(seen.data.countries).toEqual([{ name: 'DE', visitors: 3 }]);
    expect(seen.data.minutes.map((m: { t: number }) => m.t)).toEqual([Math.floor(seen.data.t / 60) * 60 - 60, Math.floor(seen.data.t / 60) * 60]);
    expect(seen.data.minutes.reduce((n: number, m: { pageviews: number }) => n + m.pageviews, 0)).toBeGreaterThanOrEqual(2);
  });

  it('refuses a management key, no token and an expired token with 401 sign in required; another account and an unknown site with 404', async () => {
    const key = await svc.key(owner, ['read', 'manage', 'ingest']);
    const revoked = await svc.key(owner, ['read']);
    await svc.req('DELETE', `/api/management-keys/${revoked.id}`, { token: owner });
    for (const headers of [bearer(key.key), bearer(revoked.key), {}, bearer(await svc.token('live-owner', -60))]) {
      const s = await open(site, headers);
      expect([s.status, s.json]).toEqual([401, { error: 'sign in required' }]);
      const t = await svc.req('POST', `/api/live/${site}/ticket`, { headers });
      expect([t.status, t.json]).toEqual([401, { error: 'sign in required' }]);
    }
    const stranger = await svc.token('live-stranger');
    for (const [hostname, token] of [
      [site, stranger],
      ['nobody-here.example', owner],
    ] as const) {
      expect([(await open(hostname, bearer(token))).status, (await ticketFor(hostname, token)).json]).toEqual([404, { error: 'unknown site' }]);
    }
  });

  it('follows the report filter of its `filter` parameter (page, event: the visitors who did it); refuses a malformed one with 400', async () => {
    const filtered = await svc.site(owner, { prefix: 'live-filtered' });
    await pageview(filtered, 21, '/a');
    await pageview(filtered, 22, '/b');
    await pageview(filtered, 22, '/b', { type: 'event', event: 'signup' });
    await svc.until(() => svc.req('GET', `/api/sites/${filtered}/overview`, { token: owner }), (r) => r.json.live === 2);
    const first = async (filter: string) => {
      const s = await open(filtered, bearer(owner), `?filter=${encodeURIComponent(filter)}`);
      const { data } = await s.next('update');
      s.close();
      return [data.visitors_5m, data.pages];
    };
    expect(await first('')).toEqual([2, [{ name: '/a', visitors: 1 }, { name: '/b', visitors: 1 }]]);
    expect(await first('page:/a')).toEqual([1, [{ name: '/a', visitors: 1 }]]);
    expect(await first('page!/a')).toEqual([1, [{ name: '/b', visitors: 1 }]]);
    expect(await first('event:signup')).toEqual([1, [{ name: '/b', visitors: 1 }]]);
    for (const bad of ['nope:x', 'page']) {
      const s = await open(filtered, bearer(owner), `?filter=${bad}`);
      expect([s.status, s.json]).toEqual([400, { error: 'invalid filter' }]);
    }
  });

  it('answers the owner of an unverified site 403, as the other reports do', async () => {
    const unverified = await svc.site(owner, { prefix: 'live-unverified', verify: false });
    const s = await open(unverified, bearer(owner));
    expect([s.status, s.json]).toEqual([403, { error: 'Install your tracking script to verify this site first' }]);
  });
});

describe('tickets', () => {
  it('let a stream open once, within a minute, for their own site only', async () => {
    const t = await ticketFor(site);
    expect(t.status).toBe(201);
    expect(Date.parse(t.json.expires_at) - Date.now()).toBeGreaterThan(55_000);
    expect(Date.parse(t.json.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    const s = await open(site, {}, `?ticket=${t.json.ticket}`);
    expect(s.status).toBe(200);
    await s.next('history');
    const again = await open(site, {}, `?ticket=${t.json.ticket}`);
    expect([again.status, again.json]).toEqual([401, { error: 'sign in required' }]);

    const other = await svc.site(owner, { prefix: 'live-other' });
    const forOther = await ticketFor(other);
    const crossed = await open(site, {}, `?ticket=${forOther.json.ticket}`);
    expect([crossed.status, crossed.json]).toEqual([401, { error: 'sign in required' }]);
    for (const bad of ['', 'x', 'A'.repeat(43)]) expect((await open(site, {}, `?ticket=${bad}`)).status).toBe(401);
  });

  it('never appear in the request log', async () => {
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    try {
      const t = await ticketFor(site);
      const s = await open(site, {}, `?ticket=${t.json.ticket}`);
      await s.next('history');
      await open(site, {}, `?ticket=${t.json.ticket}`);
      expect(lines.join('')).not.toContain(t.json.ticket);
    } finally {
      process.stdout.write = write;
    }
  });
});

describe('limits and cleanup', () => {
  it(`refuses the account's stream beyond ${MAX_LIVE_STREAMS} with 429, and takes one again once a stream closed`, async () => {
    const other = await svc.site(owner, { prefix: 'live-many' });
    for (let i = 0; i < MAX_LIVE_STREAMS; i++) {
      const s = await open(i % 2 ? site : other, bearer(owner));
      expect(s.status).toBe(200);
    }
    const sixth = await open(site, bearer(owner));
    expect([sixth.status, sixth.json]).toEqual([429, { error: LiveStreamLimitError.text }]);
    // No ticket either, so a client without access to the stream's status (EventSource) learns why.
    const ticket = await ticketFor(site);
    expect([ticket.status, ticket.json]).toEqual([429, { error: LiveStreamLimitError.text }]);
    expect(LiveStreamLimitError.text).toContain(`at most ${MAX_LIVE_STREAMS} open streams`);
    // Another account has its own slots.
    const stranger = await svc.token('live-neighbour');
    const theirs = await svc.site(stranger, { prefix: 'live-neighbour' });
    expect((await open(theirs, bearer(stranger))).status).toBe(200);

    (streams[0] as SseStream).close();
    const again = await svc.until(
      async () => {
        const s = await open(site, bearer(owner));
        if (s.status !== 200) streams.pop();
        return s.status;
      },
      (status) => status === 200,
    );
    expect(again).toBe(200);
  });

  it('leaves no timer and no read running once the client disconnects', async () => {
    svc.node.services.liveCadence = { updateMs: 100, heartbeatMs: 150, maxMs: LIVE_CADENCE.maxMs };
    const s = await open(site, bearer(owner));
    await s.next('update');
    await s.next('update');
    expect(timers.pending.size).toBeGreaterThan(0);
    s.close();
    await svc.until(async () => timers.pending.size, (n) => n === 0);
    await svc.until(() => heldSlots('live-owner'), (n) => n === 0);
    expect([timers.pending.size, await heldSlots('live-owner')]).toEqual([0, 0]);
    await svc.until(async () => readsInFlight, (n) => n === 0);
    const started = readsStarted;
    await new Promise((r) => setTimeout(r, 500));
    expect([readsInFlight, readsStarted - started]).toEqual([0, 0]);
  });

  it('sends heartbeats, and ends by itself at its time limit with an end event, freeing its slot', async () => {
    svc.node.services.liveCadence = { updateMs: 200, heartbeatMs: 100, maxMs: 700 };
    const s = await open(site, bearer(owner));
    const end = await s.next('end');
    expect(end.data).toEqual({ reason: 'time limit', reconnect: true });
    await s.ended;
    expect(s.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(3);
    expect(timers.pending.size).toBe(0);
    await svc.until(() => heldSlots('live-owner'), (n) => n === 0);
    // All five slots are free again.
    for (let i = 0; i < MAX_LIVE_STREAMS; i++) expect((await open(site, bearer(owner))).status).toBe(200);
  });
});
