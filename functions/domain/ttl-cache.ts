/** A bounded per-instance cache whose entries each carry their own time to live. */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expires: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Entries held, expired ones included until they are read or pushed out. */
  get size(): number {
    return this.entries.size;
  }

  get(key: K): { value: V } | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return { value: e.value };
  }

  set(key: K, value: V, ttlMs: number): void {
    this.entries.delete(key);
    // Oldest-inserted first out keeps memory bounded under a flood of distinct keys.
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expires: this.now() + ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
