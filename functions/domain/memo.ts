import { keyBytes } from './ttl-cache.ts';

/**
 * Memoizes a pure one-string-argument function with a cache bounded in
 * entries and approximate key bytes, for hot paths whose keys a client may
 * choose. Least recently used entries go first once a bound is reached
 * (a Map keeps insertion order: a hit moves its key to the end), so the
 * values real traffic repeats stay while a flood of distinct keys only
 * cycles through the rest. Before, a full cache was cleared: with a working
 * set just over its bound (5,000 user agents) nearly every call missed.
 */
export type Memoized<T> = ((key: string) => T) & { readonly size: number; readonly bytes: number; readonly maxEntries: number; readonly maxBytes: number };

export function memoize<T>(fn: (key: string) => T, maxEntries = 5000, maxBytes = 4 * 1024 * 1024): Memoized<T> {
  const cache = new Map<string, T>();
  let bytes = 0;
  const memoized = (key: string): T => {
    const hit = cache.get(key);
    if (hit !== undefined || cache.has(key)) {
      cache.delete(key);
      cache.set(key, hit as T);
      return hit as T;
    }
    const value = fn(key);
    const size = keyBytes(key);
    if (size > maxBytes) return value;
    while (cache.size >= maxEntries || bytes + size > maxBytes) {
      const oldest = cache.keys().next().value as string;
      cache.delete(oldest);
      bytes -= keyBytes(oldest);
    }
    cache.set(key, value);
    bytes += size;
    return value;
  };
  return Object.defineProperties(memoized, {
    size: { get: () => cache.size },
    bytes: { get: () => bytes },
    maxEntries: { value: maxEntries },
    maxBytes: { value: maxBytes },
  }) as Memoized<T>;
}
