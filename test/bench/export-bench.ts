/**
 * The owner export (issue 42): BENCH_EXPORT_ROWS rows (default 10 million)
 * of one site, seeded as the reports bench seeds (report-bench.ts, every row
 * on site-0 over 90 days), exported as CSV and as NDJSON through
 * GET /api/sites/{hostname}/export of `npm start` in its own process, read
 * by this process as fast as it comes and counted, never kept. The server's
 * resident memory is sampled every 50 ms during each export. The budget
 * (issue 42: 200 MB, DESIGN.md §6 style) is on what the export adds: its
 * peak less the RSS just before it. The process's own baseline (dynalite,
 * DuckDB, the dashboard's build, several hundred MiB that no export changes)
 * is listed beside it with the peak and the kernel's high-water mark.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedReports } from './report-bench.ts';
import { ownerSession, startServer, type Server } from './service.ts';
import { envNumber, fmt, type BenchRow } from './stats.ts';

const SITE = 'site-0.example';
/** What an export may add to the server's RSS at its peak: DESIGN.md §6 style budget of issue 42. */
export const EXPORT_RSS_BUDGET_MB = 200;
const SAMPLE_MS = 50;

const highWaterMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One export read to its end: rows (lines), bytes, seconds, and the server's peak RSS while it ran. */
async function exportOnce(server: Server, auth: Record<string, string>, format: 'csv' | 'ndjson') {
  const now = Date.now();
  const url = `${server.url}/api/sites/${SITE}/export?format=${format}&from=${day(now - 100 * 86_400_000)}&to=${day(now)}`;
  const before = server.rssMb();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, server.rssMb())), SAMPLE_MS);
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  try {
    const r = await fetch(url, { headers: auth });
    if (r.status !== 200 || !r.body) throw new Error(`${url}: ${r.status} ${await r.text()}`);
    for await (const chunk of r.body) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    }
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, server.rssMb());
  return { rows: format === 'csv' ? lines - 1 : lines, bytes, seconds: (performance.now() - started) / 1000, before, peak };
}

export async function exportBench(pages: string): Promise<BenchRow[]> {
  const total = envNumber('BENCH_EXPORT_ROWS', 10_000_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-export-'));
  try {
    const seeded = performance.now();
    await seedReports(dataDir, total, { sites: 1 });
    const rows: BenchRow[] = [{ name: `export: seeded ${fmt(total)} events of one site, 90 days`, value: `${((performance.now() - seeded) / 1000).toFixed(1)} s` }];
    const server = await startServer(dataDir, pages);
    try {
      const { auth, register } = await ownerSession(server);
      await register(SITE);
      for (const format of ['csv', 'ndjson'] as const) {
        const run = await exportOnce(server, auth, format);
        if (run.rows !== total) throw new Error(`export ${format}: ${run.rows} rows, expected ${total}`);
        rows.push({
          name: `export: ${fmt(total)} rows as ${format.toUpperCase()} through GET /api/sites/{hostname}/export (DuckDB), server RSS the export added at its peak`,
          value: `+${(run.peak - run.before).toFixed(0)} MiB (peak ${run.peak.toFixed(0)} MiB, before ${run.before.toFixed(0)} MiB); ${fmt(run.bytes / 2 ** 20)} MiB in ${run.seconds.toFixed(1)} s, ${fmt(run.rows / run.seconds)} rows/s`,
          budget: `≤ ${EXPORT_RSS_BUDGET_MB} MB added`,
          ok: (run.peak - run.before) * 2 ** 20 <= EXPORT_RSS_BUDGET_MB * 1e6,
        });
      }
      rows.push({ name: 'export: server process high-water RSS (VmHWM, start to end)', value: `${highWaterMb(server.pid).toFixed(0)} MiB` });
      return rows;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
