/** Memoizes a pure one-string-argument function with a bounded cache (cleared when full), for hot paths. */
export function memoize<T>(fn: (key: string) => T, maxEntries = 5000): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    const hit = cache.get(key);
    if (hit !== undefined || cache.has(key)) return hit as T;
    const value = fn(key);
    if (cache.size >= maxEntries) cache.clear();
    cache.set(key, value);
    return value;
  };
}
