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
