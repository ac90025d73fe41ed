import { keyBytes } from './ttl-cache.ts';

/**
 * Memoizes a pure one-string-argument function with a cache bounded in
 * entries and approximate key bytes, for hot paths whose keys a client may
 * choose. Least recently used entries go first once a bound is reached, so
 * the values real traffic repeats stay while a flood of distinct keys only
 * cycles through the rest. Before, a full cache was cleared: with a working
 * set just over its bound nearly every call missed.
 *
 * The use order is a linked list beside the Map, not the Map's own order: a
 * Map's first key after many deletions from its front is found by skipping
 * every deleted slot, which measured 30–120 µs an eviction at 5,000–20,000
 * entries.
 */
export type Memoized<T> = ((key: string) => T) & { readonly size: number; readonly bytes: number; readonly maxEntries: number; readonly maxBytes: number };

interface Node<T> {
  key: string;
  value: T;
  older: Node<T> | null;
  newer: Node<T> | null;
}

export function memoize<T>(fn: (key: string) => T, maxEntries = 5000, maxBytes = 4 * 1024 * 1024): Memoized<T> {
  const cache = new Map<string, Node<T>>();
  let oldest: Node<T> | null = null;
  let newest: Node<T> | null = null;
  let bytes = 0;
  const unlink = (node: Node<T>) => {
    if (node.older) node.older.newer = node.newer;
    else oldest = node.newer;
    if (node.newer) node.newer.older = node.older;
    else newest = node.older;
    node.older = null;
    node.newer = null;
  };
  const append = (node: Node<T>) => {
    node.older = newest;
    if (newest) newest.newer = node;
    else oldest = node;
    newest = node;
  };
  const memoized = (key: string): T => {
    const hit = cache.get(key);
    if (hit) {
      if (hit !== newest) {
        unlink(hit);
        append(hit);
      }
      return hit.value;
    }
    const value = fn(key);
    const size = keyBytes(key);
    if (size > maxBytes) return value;
    while (oldest && (cache.size >= maxEntries || bytes + size > maxBytes)) {
      const drop: Node<T> = oldest;
      unlink(drop);
      cache.delete(drop.key);
      bytes -= keyBytes(drop.key);
    }
    const node: Node<T> = { key, value, older: null, newer: null };
    append(node);
    cache.set(key, node);
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
