/**
 * Whether a beacon's CPU stays flat as a day fills (BENCH_ONLY=growth): real
 * traffic (traffic.ts) through the collector route's dispatch in-process
 * (handler.serve, no HTTP), over a local node's own queue, journal and
 * DuckDB writer, BENCH_GROWTH_BEACONS (default 2,000,000: the issue's day)
 * in slices of BENCH_GROWTH_SLICE (default 250,000). Each slice's CPU of
 * every thread of the process (process.cpuUsage) per beacon, its queue
 * drained before the clock stops, and what the process holds after it.
 *
 * In-process, not over HTTP: on this shared machine a loaded server's
 * throughput follows the disk's synchronized writes and the other
 * processes' load, but CPU time per beacon follows what the process does.
 * Compaction runs every 500,000 fresh rows: two slices hold one each, so
 * the first two slices are judged against the last two.
 */
import { startTestService } from '../support/local-node.ts';
import type { CollectorServices } from '#http/handlers/collector.ts';
import { IN_FLIGHT, sendBeacons } from './collector-phases.ts';
import { envNumber, fmt, percent, type BenchRow } from './stats.ts';

interface GrowthSlice {
  beacons: number;
  cpuMicros: number;
  heapMb: number;
  rssMb: number;
  indexMb: number | null;
}

export async function collectorGrowthBench(): Promise<BenchRow[]> {
  const total = envNumber('BENCH_GROWTH_BEACONS', 2_000_000);
  const sliceSize = envNumber('BENCH_GROWTH_SLICE', 250_000);
  const service = await startTestService();
  try {
    const hostname = await service.site(await service.token('bench-growth'));
    const services = service.node.services as CollectorServices;
    const queue = service.node.runtime.eventQueue;
    const duckdb = service.node.runtime.duckdb;
    const slices: GrowthSlice[] = [];
    for (let done = 0; done < total; done += sliceSize) {
      const count = Math.min(sliceSize, total - done);
      const before = process.cpuUsage();
      await sendBeacons(services, queue, hostname, count, IN_FLIGHT);
      const used = process.cpuUsage(before);
      const memory = process.memoryUsage();
      slices.push({
        beacons: done + count,
        cpuMicros: (used.user + used.system) / count,
        heapMb: memory.heapUsed / 2 ** 20,
        rssMb: memory.rss / 2 ** 20,
        indexMb: duckdb ? duckdb.index.bytes / 2 ** 20 : null,
      });
    }
    const mean = (xs: GrowthSlice[]) => xs.reduce((s, x) => s + x.cpuMicros, 0) / xs.length;
    const first = mean(slices.slice(0, 2));
    const last = mean(slices.slice(-2));
    const kept = first / last;
    return [
      {
        name: `CPU per beacon as a day fills: ${fmt(total)} beacons of real traffic in-process (the route's dispatch, the node's queue, journal and DuckDB writer), every thread, by slice of ${fmt(sliceSize)}`,
        value: slices
          .map((s) => `${fmt(s.beacons)}: ${s.cpuMicros.toFixed(1)} µs (heap ${fmt(s.heapMb)} MiB, RSS ${fmt(s.rssMb)} MiB${s.indexMb === null ? '' : `, flag index ${fmt(s.indexMb)} MiB`})`)
          .join('; '),
      },
      {
        name: 'CPU per beacon as a day fills: the first two slices\' against the last two\'s (as a throughput share: first ÷ last)',
        value: `${percent(kept)} (${first.toFixed(1)} µs first, ${last.toFixed(1)} µs last)`,
        budget: '≥ 90 %',
        ok: kept >= 0.9,
      },
    ];
  } finally {
    await service.stop();
  }
}
