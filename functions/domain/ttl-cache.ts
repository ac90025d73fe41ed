/** Rough bytes one cache entry holds besides its key: the Map slot and the entry object. */
const ENTRY_OVERHEAD_BYTES = 64;

/** Approximate bytes of a key: JavaScript strings are UTF-16, two bytes a character. */
export const keyBytes = (key: unknown): number => ENTRY_OVERHEAD_BYTES + (typeof key === 'string' ? 2 * key.length : 0);

interface Entry<K, V> {
  key: K;
  value: V;
  expires: number;
  bytes: number;
}

/** Stale slots (entries deleted or set again) the insertion order may hold beyond twice the live ones before it is rebuilt. */
const STALE_SLACK = 1024;

/**
 * A bounded per-instance cache whose entries each carry their own time to
 * live. Bounded in entries and, for keys a client chooses, in approximate bytes.
 *
 * At its bound the oldest-inserted entry goes. It is found in its own
 * insertion-order list, not as the Map's first key: after many deletions
 * from its front a Map skips every deleted slot to find its first key (V8
 * compacts only when it grows), which measured ~270 µs a look-up at 200,000
 * entries, so a full cache of beacon ids (the collector's resends) cost more
 * per beacon the longer the server ran.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<K, V>>();
  /** Entries in insertion order from `head`; slots of entries no longer held are skipped (and rebuilt away). */
  private order: (Entry<K, V> | undefined)[] = [];
  private head = 0;
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

  private live(key: K): Entry<K, V> | undefined {
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
      if (!this.dropOldest()) break;
    }
    const entry = { key, value, expires: this.now() + ttlMs, bytes };
    this.entries.set(key, entry);
    this.heldBytes += bytes;
    this.order.push(entry);
    if (this.order.length - this.head > 2 * this.entries.size + STALE_SLACK) this.rebuildOrder();
  }

  delete(key: K): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.heldBytes -= e.bytes;
  }

  /** Deletes the oldest-inserted entry held; false when none is. */
  private dropOldest(): boolean {
    while (this.head < this.order.length) {
      const e = this.order[this.head];
      this.order[this.head++] = undefined;
      if (e && this.entries.get(e.key) === e) {
        this.delete(e.key);
        if (this.head > STALE_SLACK && 2 * this.head > this.order.length) this.rebuildOrder();
        return true;
      }
    }
    return false;
  }

  /** The insertion order of the entries held, without stale slots (a Map iterates in insertion order). */
  private rebuildOrder(): void {
    this.order = [...this.entries.values()];
    this.head = 0;
  }
}
