/**
 * Every way a beacon stores nothing is counted once, by reason, through the
 * instance's drop counter: the collector handler in-process, over a registry
 * and a queue that the cases control.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler } from '#http/handlers/collector.ts';
import type { ApiRequest } from '#http/api.ts';
import type { DropReason } from '#domain/ingest/drop.ts';
import { newSiteRecord } from '#domain/site.ts';
import { withInstanceState, type Adapters, type Services } from '#platform/services.ts';
import { DropLog } from '#platform/collector-drops.ts';
import { DropCounts } from '#domain/recent-drops.ts';
import { QueueFullError } from '#domain/queue-full.ts';
import type { SiteRecord } from '#ports/registry.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const VERIFIED = { ...newSiteRecord('drops.example', 'web', 'owner', new Date(0)), verified_at: '2025-01-01T00:00:00Z' };
const PENDING = newSiteRecord('pending.example', 'web', 'owner', new Date(0));

type Send = () => Promise<void>;

/** Services over a registry that knows VERIFIED and PENDING (and fails for `broken.example`), and a queue doing `send`. */
function instance(send: Send = async () => {}): { services: Services; drops: [DropReason, string | null][]; logged: string[] } {
  const sites = new Map<string, SiteRecord>([
    [VERIFIED.hostname, VERIFIED],
    [PENDING.hostname, PENDING],
  ]);
  const adapters = {
    clock: { now: () => new Date('2025-06-01T12:00:00Z') },
    registry: {
      getSite: async (name: string) => {
        if (name === 'broken.example') throw new Error('registry down');
        return sites.get(name) ?? null;
      },
      getOrCreateDailySalt: async () => 'salt',
      recordSiteSeen: async () => {},
    },
    eventQueue: { send, sendBatch: async () => {} },
  } as unknown as Adapters;
  const services = withInstanceState(adapters, { collectorInProcess: true });
  const drops: [DropReason, string | null][] = [];
  services.collectorDrops = { dropped: (reason: DropReason, hostname: string | null) => void drops.push([reason, hostname]), flush: () => {} } as unknown as DropLog;
  const logged: string[] = [];
  services.log = { warn: (msg) => void logged.push(msg), error: (msg) => void logged.push(msg) };
  // PENDING's automatic check ran lately: beacons wait for the next one.
  services.verifyAttempts.set(PENDING.hostname, true, 60_000);
  return { services, drops, logged };
}

const post = (services: Services, path: '/events' | '/append', body: unknown, headers: Record<string, string> = {}): ApiRequest => ({
  method: 'POST',
  path,
  params: {},
  query: {},
  headers: { 'user-agent': UA, ...headers },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  sourceIp: '192.0.2.1',
  services,
});

const image = (services: Services, query: Record<string, string>, headers: Record<string, string> = {}, method = 'GET'): ApiRequest => ({
  method,
  path: '/simple.gif',
  params: {},
  query,
  headers: { 'user-agent': UA, ...headers },
  body: Buffer.alloc(0),
  sourceIp: '192.0.2.1',
  services,
});

const events = (services: Services, body: unknown, headers?: Record<string, string>) => handler.serve(post(services, '/events', body, headers), 'POST /events');
const gif = (services: Services, query: Record<string, string>, headers?: Record<string, string>, method?: string) => handler.serve(image(services, query, headers, method), 'ANY /simple.gif');

afterEach(() => vi.restoreAllMocks());

describe('collector drops', () => {
  it('counts each refusal before the payload is read as dnt or invalid, without a hostname, on the JSON and image routes', async () => {
    const { services, drops } = instance();
    const answers = [
      await events(services, 'not json'),
      await events(services, { hostname: 'drops.example', path: 'no-slash' }),
      await events(services, { hostname: 'drops.example', path: '/' }, { dnt: '1' }),
      await events(services, 'x'.repeat(70 * 1024)),
      await gif(services, { hostname: 'drops.example', path: '/' }, { dnt: '1' }),
      await gif(services, { hostname: 'drops.example', viewport_width: 'wide' }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([400, 400, 200, 413, 200, 400]);
    expect(drops).toEqual([
      ['invalid', null],
      ['invalid', null],
      ['dnt', null],
      ['invalid', null],
      ['dnt', null],
      ['invalid', null],
    ]);
  });

  it('counts nothing for HEAD image requests, which are no beacons', async () => {
    const { services, drops } = instance();
    await gif(services, { hostname: 'drops.example' }, { dnt: '1' }, 'HEAD');
    await gif(services, { hostname: 'drops.example', viewport_width: 'wide' }, {}, 'HEAD');
    await gif(services, { hostname: 'nowhere.example' }, {}, 'HEAD');
    expect(drops).toEqual([]);
  });

  it('counts every drop after validation by its reason with the hostname as sent, and logs the failed look-up through the log port', async () => {
    const { services, drops, logged } = instance();
    const id = 'client-id-1';
    const cases: [unknown, DropReason][] = [
      [{ hostname: 'localhost:8080' }, 'invalid_hostname'],
      [{ hostname: 'nowhere.example' }, 'unknown_site'],
      [{ hostname: 'Pending.example' }, 'unverified'],
      [{ hostname: 'broken.example' }, 'lookup_failed'],
      [{ hostname: 'drops.example', type: 'event', event: '!!!' }, 'empty_event_name'],
      [{ hostname: 'drops.example', type: 'error' }, 'client_error'],
    ];
    for (const [body] of cases) expect((await events(services, body)).statusCode).toBe(200);
    expect((await events(services, { hostname: 'drops.example', id })).statusCode).toBe(200);
    expect((await gif(services, { hostname: 'drops.example', id })).statusCode).toBe(200);
    expect(drops).toEqual([...cases.map(([body, reason]) => [reason, (body as { hostname: string }).hostname]), ['replay', 'drops.example']]);
    expect(logged).toEqual(['site lookup failed']);
  });

  it('counts a beacon the queue could not take as queue_full or enqueue_failed, answered 503, and logs only the failed write', async () => {
    const full = instance(async () => {
      throw new QueueFullError(1, 1);
    });
    const failing = instance(async () => {
      throw new Error('journal write failed');
    });
    expect((await events(full.services, { hostname: 'drops.example' })).statusCode).toBe(503);
    expect((await gif(failing.services, { hostname: 'drops.example' })).statusCode).toBe(503);
    expect([...full.drops, ...failing.drops]).toEqual([
      ['queue_full', 'drops.example'],
      ['enqueue_failed', 'drops.example'],
    ]);
    expect([full.logged, failing.logged]).toEqual([[], ['event queue refused']]);
  });

  it('counts nothing for a stored beacon', async () => {
    const sent: unknown[] = [];
    const { services, drops } = instance(async () => void sent.push(1));
    await events(services, { hostname: 'drops.example' });
    await gif(services, { hostname: 'drops.example' });
    expect([sent.length, drops]).toEqual([2, []]);
  });
});

describe('the drop log', () => {
  it('writes the counts since the last flush as one line, and tallies for the setup check only drops with a hostname', () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    const recent = new DropCounts(100, () => 0, Infinity);
    const dropLog = new DropLog(recent);
    dropLog.dropped('dnt', null);
    dropLog.dropped('unknown_site', 'a.example');
    dropLog.dropped('unknown_site', 'a.example');
    dropLog.flush();
    dropLog.flush();
    expect(lines.map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ level: 'info', msg: 'collector drops', counts: { dnt: 1, unknown_site: 2 } })]);
    expect(recent.find(() => true, Infinity).map(({ hostname, reason, count }) => ({ hostname, reason, count }))).toEqual([{ hostname: 'a.example', reason: 'unknown_site', count: 2 }]);
  });
});
