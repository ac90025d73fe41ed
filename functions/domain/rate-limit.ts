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
    return this.takeOrWait(id) === 0;
  }

  /** Milliseconds until `id` has a token (0: it has one now), taking none. */
  waitMs(id: string): number {
    const b = this.buckets.get(id);
    return b ? this.msUntilToken(this.tokensAt(b, this.now())) : 0;
  }

  /** Takes one token and answers 0, or, when the bucket is empty, the milliseconds until it has one. */
  takeOrWait(id: string): number {
    const t = this.now();
    const b = this.buckets.get(id);
    const tokens = b ? this.tokensAt(b, t) : this.burst;
    const allowed = tokens >= 1;
    if (b) this.buckets.delete(id);
    else if (this.buckets.size >= this.maxBuckets) this.evictLeastRecent();
    this.buckets.set(id, { tokens: allowed ? tokens - 1 : tokens, at: t });
    return allowed ? 0 : this.msUntilToken(tokens);
  }

  private tokensAt(b: { tokens: number; at: number }, t: number): number {
    return Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.refillPerSecond);
  }

  private msUntilToken(tokens: number): number {
    return tokens >= 1 ? 0 : ((1 - tokens) / this.refillPerSecond) * 1000;
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
