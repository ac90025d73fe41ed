import { describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from '#domain/rate-limit.ts';
import { TtlCache } from '#domain/ttl-cache.ts';

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

  it('stays bounded under many callers', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter(2, 1, () => now, 100);
    for (let i = 0; i < 1000; i++) limiter.take(`k${i}`);
    now += 10_000;
    for (let i = 0; i < 1000; i++) expect(limiter.take(`x${i}`)).toBe(true);
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
});
