/** Run-to-run spread on this 2-vCPU machine is ±10–15 %: throughput budgets are judged on the median of a few runs. */
export const RUNS = 3;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
