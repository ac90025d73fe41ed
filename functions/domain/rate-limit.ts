/** Token buckets per caller: a burst, then a steady refill (spec part 5 rule 12). */
export class TokenBucketLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly burst: number,
    private readonly refillPerSecond: number,
    private readonly now: () => number = Date.now,
    private readonly maxBuckets = 10_000,
  ) {}

  /** Takes one token; false when the bucket is empty. */
  take(id: string): boolean {
    const t = this.now();
    const b = this.buckets.get(id) ?? { tokens: this.burst, at: t };
    const tokens = Math.min(this.burst, b.tokens + ((t - b.at) / 1000) * this.refillPerSecond);
    const allowed = tokens >= 1;
    if (!this.buckets.has(id) && this.buckets.size >= this.maxBuckets) this.evictFull(t);
    this.buckets.set(id, { tokens: allowed ? tokens - 1 : tokens, at: t });
    return allowed;
  }

  /** A full bucket is the same as no bucket, so it can go. */
  private evictFull(t: number): void {
    for (const [id, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.refillPerSecond >= this.burst) this.buckets.delete(id);
    }
  }
}
