/** One line of docs/benchmarks.md: a budget (and whether it is kept) where there is one. */
export interface BenchRow {
  name: string;
  value: string;
  budget?: string;
  ok?: boolean;
}

/** Run-to-run spread on this 2-vCPU machine is ±10–15 %: throughput budgets are judged on the median of a few runs. */
export const RUNS = 3;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en');

export const percent = (x: number) => `${(x * 100).toFixed(0)} %`;

/** A positive number from the environment (quick trials shorten the runs), else `fallback`. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!(n > 0)) throw new Error(`${name} must be a positive number, got ${raw}`);
  return n;
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

/**
 * `n` GETs of `url` one after another (`before` each, `after` each answer): the median and p95 of
 * all but the first, which is cold (it may also build what its read lacks), shown apart.
 */
export async function timedGets(url: string, headers: Record<string, string>, n: number, { before, after }: { before?: () => Promise<void>; after?: () => void } = {}) {
  const times: number[] = [];
  let first = 0;
  for (let i = 0; i < n; i++) {
    await before?.();
    const t = performance.now();
    const r = await fetch(url, { headers });
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
    if (i === 0) first = performance.now() - t;
    else times.push(performance.now() - t);
    after?.();
  }
  times.sort((a, b) => a - b);
  const median = percentile(times, 0.5);
  return { median, summary: `median ${median.toFixed(0)} ms, p95 ${percentile(times, 0.95).toFixed(0)} ms (first ${first.toFixed(0)} ms)` };
}

/** A timed read judged against a median budget. */
export const budgetRow = (name: string, timed: { median: number; summary: string }, budgetMs: number): BenchRow => ({
  name,
  value: timed.summary,
  budget: `median < ${budgetMs} ms`,
  ok: timed.median < budgetMs,
});
