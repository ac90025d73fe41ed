/** Rough bytes one cache entry holds besides its key: the Map slot and the entry object. */
const ENTRY_OVERHEAD_BYTES = 64;

/** Approximate bytes of a key: JavaScript strings are UTF-16, two bytes a character. */
export const keyBytes = (key: unknown): number => ENTRY_OVERHEAD_BYTES + (typeof key === 'string' ? 2 * key.length : 0);

/**
 * A bounded per-instance cache whose entries each carry their own time to
 * live. Bounded in entries and, for keys a client chooses, in approximate bytes.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number; bytes: number }>();
  private heldBytes = 0;

  constructor(
    readonly maxEntries: number,
    private readonly now: () => number = Date.now,
    readonly maxBytes = Infinity,
  ) {}

  /** Entries held, expired ones included until they are read or pushed out. */
  get size(): number {
    return this.entries.size;
  }

  /** Approximate bytes held (keys and per-entry overhead). */
  get bytes(): number {
    return this.heldBytes;
  }

  get(key: K): { value: V } | undefined {
    const e = this.live(key);
    return e ? { value: e.value } : undefined;
  }

  /** Whether a live entry is held: no answer object made (hot paths). */
  has(key: K): boolean {
    return this.live(key) !== undefined;
  }

  /** The live entry's value, or undefined: only for caches whose values are never undefined (hot paths). */
  value(key: K): V | undefined {
    return this.live(key)?.value;
  }

  private live(key: K): { value: V; expires: number; bytes: number } | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.delete(key);
      return undefined;
    }
    return e;
  }

  set(key: K, value: V, ttlMs: number): void {
    this.delete(key);
    const bytes = keyBytes(key);
    if (bytes > this.maxBytes) return;
    // Oldest-inserted first out keeps memory bounded under a flood of distinct keys.
    while (this.entries.size >= this.maxEntries || this.heldBytes + bytes > this.maxBytes) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
    this.entries.set(key, { value, expires: this.now() + ttlMs, bytes });
    this.heldBytes += bytes;
  }

  delete(key: K): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.heldBytes -= e.bytes;
  }
}
