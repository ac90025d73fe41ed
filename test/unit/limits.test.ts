import { describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from '#domain/rate-limit.ts';
import { TtlCache, keyBytes } from '#domain/ttl-cache.ts';
import { memoize, type Memoized } from '#domain/memo.ts';
import { CollectorCaches } from '#domain/ingest/caches.ts';
import { newSiteRecord } from '#domain/site.ts';
import { parseJsonPayload } from '#domain/ingest/payload.ts';
import type { ApiRequest } from '#http/api.ts';
import { requirePrincipal } from '#http/auth.ts';
import { collect } from '#domain/ingest/collect.ts';
import { findSite } from '#domain/site-lookup.ts';
import { withInstanceState, type Adapters, type Services } from '#platform/services.ts';
import type { SiteRecord } from '#ports/registry.ts';

describe('TokenBucketLimiter', () => {
  it('allows a burst, then one per second', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter(60, 1, () => now);
    for (let i = 0; i < 60; i++) expect(limiter.take('k')).toBe(true);
    expect(limiter.take('k')).toBe(false);
    now += 999;
    expect(limiter.take('k')).toBe(false);
    now += 1;
    expect(limiter.take('k')).toBe(true);
    expect(limiter.take('k')).toBe(false);
    expect(limiter.take('other')).toBe(true);
  });

  it('never refills beyond the burst', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter(3, 1, () => now);
    now += 100_000;
    expect([limiter.take('k'), limiter.take('k'), limiter.take('k'), limiter.take('k')]).toEqual([true, true, true, false]);
  });

  it('holds at most maxBuckets buckets under many callers, and a new caller still gets its burst', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter(2, 1, () => now, 100);
    for (let i = 0; i < 1000; i++) limiter.take(`k${i}`);
    expect(limiter.size).toBe(100);
    now += 10_000;
    for (let i = 0; i < 1000; i++) expect(limiter.take(`x${i}`)).toBe(true);
    expect(limiter.size).toBe(100);
  });

  it('keeps the buckets of callers in use when others push out old ones', () => {
    const limiter = new TokenBucketLimiter(2, 1, () => 0, 3);
    expect([limiter.take('a'), limiter.take('a')]).toEqual([true, true]);
    limiter.take('b');
    limiter.take('a');
    limiter.take('c');
    limiter.take('d');
    // "b" was the least recently used: "a" keeps its empty bucket.
    expect(limiter.take('a')).toBe(false);
  });
});

describe('TtlCache', () => {
  it('expires each entry after its own TTL', () => {
    let now = 0;
    const cache = new TtlCache<string, number | null>(10, () => now);
    cache.set('a', 1, 30_000);
    cache.set('b', null, 15_000);
    now = 15_000;
    expect(cache.get('a')).toEqual({ value: 1 });
    expect(cache.get('b')).toBeUndefined();
    now = 30_000;
    expect(cache.get('a')).toBeUndefined();
  });

  it('caches null (a known miss) distinctly from absent', () => {
    const cache = new TtlCache<string, null>(10);
    cache.set('x', null, 1000);
    expect(cache.get('x')).toEqual({ value: null });
    cache.delete('x');
    expect(cache.get('x')).toBeUndefined();
  });

  it('drops the oldest entry beyond its size', () => {
    const cache = new TtlCache<number, number>(3);
    for (let i = 0; i < 4; i++) cache.set(i, i, 1000);
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(3)).toEqual({ value: 3 });
  });

  it('drops the oldest entries beyond its bytes, counts a replaced key once, and frees deleted keys', () => {
    const cache = new TtlCache<string, true>(100, Date.now, 3 * keyBytes('x'.repeat(10)));
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k.repeat(10), true, 1000);
    cache.set('d'.repeat(10), true, 1000);
    expect([cache.size, cache.bytes]).toEqual([3, 3 * keyBytes('x'.repeat(10))]);
    expect(cache.get('a'.repeat(10))).toBeUndefined();
    cache.delete('b'.repeat(10));
    expect([cache.size, cache.bytes]).toEqual([2, 2 * keyBytes('x'.repeat(10))]);
  });

  it('drops the oldest-inserted entry still held, after keys were deleted, expired or set again', () => {
    let now = 0;
    const cache = new TtlCache<number, number>(4, () => now);
    for (let i = 0; i < 3; i++) cache.set(i, i, i === 1 ? 10 : 1000);
    cache.set(0, 0, 1000); // set again: now the newest
    now = 20; // 1 expired
    expect(cache.get(1)).toBeUndefined();
    for (let i = 0; i < 3_000; i++) cache.set(100, i, 1000); // stale slots pile up and are rebuilt away
    cache.set(3, 3, 1000);
    cache.set(4, 4, 1000);
    expect([2, 0, 100, 3, 4].map((k) => cache.get(k)?.value)).toEqual([undefined, 0, 2_999, 3, 4]);
  });

  it('keeps its insertion order within twice its entries (plus a fixed slack) under a flood of distinct keys at its bound', () => {
    // Eviction reads the order list from its head; a list that only grew would be the unbounded scan the Map's own order was.
    const cache = new TtlCache<string, true>(1_000);
    const order = () => {
      const inner = cache as unknown as { order: unknown[]; head: number };
      return inner.order.length - inner.head;
    };
    let longest = 0;
    for (let i = 0; i < 50_000; i++) {
      cache.set(`key-${i}`, true, 60_000);
      if (i % 7 === 0) cache.delete(`key-${i - 3}`);
      longest = Math.max(longest, order());
    }
    expect(cache.size).toBeLessThanOrEqual(1_000);
    expect(longest).toBeLessThanOrEqual(2 * 1_000 + 1_024 + 1);
  });

  it('does not hold a key larger than all its bytes', () => {
    const cache = new TtlCache<string, true>(100, Date.now, 100);
    cache.set('small', true, 1000);
    cache.set('x'.repeat(1000), true, 1000);
    expect([cache.size, cache.get('small')]).toEqual([1, { value: true }]);
  });
});

describe('memoize', () => {
  it('stays within its entries and bytes under a flood of distinct long keys, still answering each', () => {
    const memo = memoize((k: string) => k.length, 5000, 1024 * 1024);
    for (let i = 0; i < 100_000; i++) expect(memo(`${i}`.padEnd(253, 'x'))).toBe(253);
    expect(memo.size).toBeLessThanOrEqual(5000);
    expect(memo.bytes).toBeLessThanOrEqual(1024 * 1024);
  });

  it('at its bound, drops the least recently used key: one read again stays, the oldest unread goes', () => {
    const calls: string[] = [];
    const memo = memoize((k: string) => (calls.push(k), k.length), 3);
    for (const k of ['a', 'bb', 'ccc']) memo(k);
    memo('a');
    memo('dddd');
    calls.length = 0;
    for (const k of ['a', 'ccc', 'dddd']) memo(k);
    expect(calls).toEqual([]);
    memo('bb');
    expect([calls, memo.size]).toEqual([['bb'], 3]);
  });

  it('at its byte bound, drops the least recently used keys until the new one fits', () => {
    const memo = memoize((k: string) => k, 100, keyBytes('x'.repeat(10)) * 2);
    memo('a'.repeat(10));
    memo('b'.repeat(10));
    memo('c'.repeat(10));
    expect([memo.size, memo.bytes]).toEqual([2, keyBytes('x'.repeat(10)) * 2]);
  });
});

describe('the collector caches of client input', { timeout: 120_000 }, () => {
  /** Distinct short keys, then the longest a client can send: within both bounds throughout (entries dropped when full), every answer still right. */
  function flood<T>(cache: Memoized<T>, key: (i: number, long: boolean) => string, expected: (key: string) => T) {
    for (const long of [false, true]) {
      let cleared = false;
      for (let i = 0; i < cache.maxEntries + 2_000; i++) {
        const k = key(i, long);
        const before = cache.size;
        expect(cache(k)).toEqual(expected(k));
        if (cache.size <= before) cleared = true;
        expect(cache.size).toBeLessThanOrEqual(cache.maxEntries);
        expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
      }
      expect(cleared).toBe(true);
    }
  }

  it('keeps hostnames, user agents, zones and brand lists each within its entries and key bytes', () => {
    const caches = new CollectorCaches();
    const pad = (i: number, long: boolean, length: number) => `${i}`.padEnd(long ? length : 8, 'x');
    flood(caches.hostnames, (i, long) => `h${pad(i, long, 60)}${long ? `.${'x'.repeat(60)}.${'y'.repeat(60)}.${'z'.repeat(50)}` : ''}.example`, (k) => ({ ok: true as const, hostname: k }));
    flood(caches.agents, (i, long) => `Bench/${pad(i, long, 1024)}`, () => expect.objectContaining({ bot: expect.any(Boolean) }));
    flood(caches.countries, (i, long) => `Zone/${pad(i, long, 64)}`, () => null);
    flood(caches.brands, (i, long) => `Brand${pad(i, long, 512)};1`, () => null);
    // Each is a real cache: a repeated value is answered from it.
    expect(caches.countries('Europe/Berlin')).toBe('DE');
    expect(caches.countries.size).toBeGreaterThan(0);
  });
});

/** A name of `length` characters (at most 253) in canonical form, distinct for each i. */
const hostname = (i: number, length: number) => {
  const first = `h${i.toString(36)}`;
  const labels = [first];
  let left = length - first.length;
  while (left > 0) {
    const label = Math.min(63, left - 1);
    labels.push('x'.repeat(Math.max(1, label)));
    left -= label + 1;
  }
  return labels.join('.');
};

/** The per-instance state as deployed, over a registry that knows `sites` and a queue that takes everything. */
function instance(sites: SiteRecord[] = []): Services & { reads: number } {
  const byName = new Map(sites.map((s) => [s.hostname, s]));
  const counts = { reads: 0 };
  const adapters = {
    clock: { now: () => new Date('2025-01-01T12:00:00Z') },
    registry: {
      getSite: async (name: string) => {
        counts.reads++;
        return byName.get(name) ?? null;
      },
      getOrCreateDailySalt: async () => 'salt',
      recordSiteSeen: async () => {},
    },
    eventQueue: { send: async () => {}, sendBatch: async () => {} },
  } as unknown as Adapters;
  return Object.defineProperty(withInstanceState(adapters), 'reads', { get: () => counts.reads }) as Services & { reads: number };
}

/** At its bound: full by entries or by bytes (within one more entry), and over neither. */
function expectAtBound(cache: TtlCache<string, unknown>, largestKey: string) {
  expect(cache.size).toBeLessThanOrEqual(cache.maxEntries);
  expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
  expect(cache.size === cache.maxEntries || cache.bytes > cache.maxBytes - keyBytes(largestKey)).toBe(true);
}

// Floods are long on a busy machine: a generous timeout, no timed assertion.
describe('a flood of 100,000 distinct callers, replay ids and unregistered hostnames', { timeout: 120_000 }, () => {
  const FLOOD = 100_000;

  it('keeps the management-key change limiter at its bound', async () => {
    const services = instance();
    for (let i = 0; i < FLOOD; i++) {
      const req = { method: 'POST', services, caller: Promise.resolve({ kind: 'key', uid: 'u', keyId: `key-${i}`, scopes: ['manage'], secretHash: 'h' }) };
      await requirePrincipal(req as unknown as ApiRequest, 'manage');
    }
    expect(services.changeLimiter.size).toBe(services.changeLimiter.maxBuckets);
  });

  it('keeps the negative site look-ups at their bound in entries (short names) and in bytes (longest names)', async () => {
    for (const length of [20, 253]) {
      const services = instance();
      for (let i = 0; i < FLOOD; i++) await findSite(services, hostname(i, length));
      expectAtBound(services.missingSites, hostname(FLOOD, length));
      if (length === 20) expect(services.missingSites.size).toBe(services.missingSites.maxEntries);
      expect(services.siteCache.size).toBe(0);
    }
  });

  it('keeps the collector replay ids and negative look-ups at their bounds, and a known site cached', async () => {
    const site = { ...newSiteRecord(hostname(0, 253), 'web', 'owner', new Date(0)), verified_at: '2025-01-01T00:00:00Z' };
    const services = instance([site]);
    const beacon = (payload: Record<string, unknown>) => {
      const parsed = parseJsonPayload({ path: '/', ...payload });
      if (!parsed.ok) throw new Error(parsed.error);
      return { payload: parsed.payload, append: false, ip: '192.0.2.1', headerUa: 'Mozilla/5.0' };
    };
    const longId = (i: number) => `${i}`.padEnd(128, 'i');
    let stored = 0;
    for (let i = 0; i < FLOOD; i++) {
      if ((await collect(services, beacon({ hostname: site.hostname, id: longId(i) }))) === null) stored++;
      await collect(services, beacon({ hostname: hostname(i + 1, 253) }));
    }
    expect(stored).toBe(FLOOD);
    expectAtBound(services.resends, `${site.hostname}\n${longId(FLOOD)}`);
    expectAtBound(services.missingSites, hostname(FLOOD, 253));
    expect(services.siteCache.get(site.hostname)).toEqual({ value: site });
  });

  it('reads the registry once per cache lifetime for a repeated unregistered hostname', async () => {
    const services = instance();
    for (let i = 0; i < 50; i++) await findSite(services, 'never-registered.example');
    expect(services.reads).toBe(1);
  });
});
