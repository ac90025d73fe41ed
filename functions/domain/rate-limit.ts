/** Token buckets per caller: a burst, then a steady refill (spec part 5 rule 12). */
export class TokenBucketLimiter {
  /** In order of last use, least recent first. */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly burst: number,
    private readonly refillPerSecond: number,
    private readonly now: () => number = Date.now,
    readonly maxBuckets = 10_000,
  ) {}

  /** Buckets held: at most maxBuckets. */
  get size(): number {
    return this.buckets.size;
  }

  /** Takes one token; false when the bucket is empty. */
  take(id: string): boolean {
    const t = this.now();
    const b = this.buckets.get(id);
    const tokens = b ? Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.refillPerSecond) : this.burst;
    const allowed = tokens >= 1;
    if (b) this.buckets.delete(id);
    else if (this.buckets.size >= this.maxBuckets) this.evictLeastRecent();
    this.buckets.set(id, { tokens: allowed ? tokens - 1 : tokens, at: t });
    return allowed;
  }

  /**
   * The bucket unused the longest goes, in O(1). It has had the longest to
   * refill, so it is full (the same as no bucket) unless more than maxBuckets
   * callers changed something within one burst's refill time.
   */
  private evictLeastRecent(): void {
    const oldest = this.buckets.keys().next();
    if (!oldest.done) this.buckets.delete(oldest.value);
  }
}
