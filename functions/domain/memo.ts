import { keyBytes } from './ttl-cache.ts';

/**
 * Memoizes a pure one-string-argument function with a cache bounded in
 * entries and approximate key bytes (cleared when full), for hot paths whose
 * keys a client may choose.
 */
export type Memoized<T> = ((key: string) => T) & { readonly size: number; readonly bytes: number; readonly maxEntries: number; readonly maxBytes: number };

export function memoize<T>(fn: (key: string) => T, maxEntries = 5000, maxBytes = 4 * 1024 * 1024): Memoized<T> {
  const cache = new Map<string, T>();
  let bytes = 0;
  const memoized = (key: string): T => {
    const hit = cache.get(key);
    if (hit !== undefined || cache.has(key)) return hit as T;
    const value = fn(key);
    const size = keyBytes(key);
    if (cache.size >= maxEntries || bytes + size > maxBytes) {
      cache.clear();
      bytes = 0;
    }
    if (size <= maxBytes) {
      cache.set(key, value);
      bytes += size;
    }
    return value;
  };
  return Object.defineProperties(memoized, {
    size: { get: () => cache.size },
    bytes: { get: () => bytes },
    maxEntries: { value: maxEntries },
    maxBytes: { value: maxBytes },
  }) as Memoized<T>;
}
