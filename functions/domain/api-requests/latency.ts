/**
 * Latency percentiles from a log-bucketed histogram, the one way every store
 * answers them: a duration d (ms) falls in bucket floor(ln(1 + d) / ln γ), and
 * a percentile is the nearest-rank bucket's geometric middle γ^(b + ½) − 1. So
 * an answer is within LATENCY_RELATIVE_ERROR of (1 + the exact nearest-rank
 * value), on rows and rollups alike: the rollups keep counts per bucket, and
 * any range, filter or sum of them gives the same answer rows would.
 */

/** Bucket width: each bucket's upper bound is γ times its lower (of 1 + d). */
export const LATENCY_GAMMA = 1.08;
/** How far an answered percentile may be from the exact one, relative to (1 + exact) ms: √γ − 1 ≈ 3.9 %. */
export const LATENCY_RELATIVE_ERROR = Math.sqrt(LATENCY_GAMMA) - 1;

const LN_GAMMA = Math.log(LATENCY_GAMMA);

/** The bucket of a duration in ms (≥ 0). The stores compute the same in SQL (latencyBucketSql). */
export const latencyBucket = (durationMs: number): number => Math.floor(Math.log1p(Math.max(0, durationMs)) / LN_GAMMA);

/** A bucket's representative duration, rounded to 0.1 ms. */
export const bucketLatency = (bucket: number): number => Math.round((Math.exp((bucket + 0.5) * LN_GAMMA) - 1) * 10) / 10;

/** The bucket of a duration column in SQL, the same text for DuckDB and ClickHouse (both know ln, floor, greatest and INTEGER). */
export const latencyBucketSql = (column: string): string => `CAST(floor(ln(1 + greatest(${column}, 0)) / ${LN_GAMMA}) AS INTEGER)`;

/** Nearest rank of percentile p (0 < p ≤ 1) among n values, 1-based. */
export const nearestRank = (p: number, n: number): number => Math.max(1, Math.ceil(p * n));

/**
 * The percentiles of a histogram given as (bucket, count) pairs in any order, duplicates added:
 * for each p the bucket holding the nearest-rank value, as its representative latency; null when empty.
 */
export function histogramPercentiles(pairs: Iterable<readonly [number, number]>, ps: readonly number[]): (number | null)[] {
  const counts = new Map<number, number>();
  let total = 0;
  for (const [bucket, n] of pairs) {
    if (n <= 0) continue;
    counts.set(bucket, (counts.get(bucket) ?? 0) + n);
    total += n;
  }
  if (total === 0) return ps.map(() => null);
  const buckets = [...counts.keys()].sort((a, b) => a - b);
  return ps.map((p) => {
    const rank = nearestRank(p, total);
    let seen = 0;
    for (const b of buckets) {
      seen += counts.get(b) as number;
      if (seen >= rank) return bucketLatency(b);
    }
    return bucketLatency(buckets[buckets.length - 1] as number);
  });
}

/** The exact nearest-rank percentile of some durations (the reference the histogram answer is within the stated error of). */
export function exactPercentile(durations: readonly number[], p: number): number | null {
  if (durations.length === 0) return null;
  const sorted = [...durations].sort((a, b) => a - b);
  return sorted[nearestRank(p, sorted.length) - 1] as number;
}
