/**
 * `npm run bench`: the budgets of DESIGN.md §6, measured on this machine and
 * written to docs/benchmarks.md. Servers run in their own processes; load
 * comes from autocannon in this one. A missed budget is reported, not hidden.
 * BENCH_ONLY=tracker,dashboard,bundles,writer,writer-clickhouse,http,ingest,long,phases,growth,imports,imports-clickhouse,reports,reports-clickhouse,reports-imported,reports-imported-clickhouse,api-reports,api-reports-clickhouse,goals,goals-clickhouse,export runs some parts (a section of its own after the last full run's table)
 * while iterating (the default runs all); each part's file documents its own
 * settings (collector-bench.ts, collector-phases.ts, collector-growth.ts, writer-bench.ts, BENCH_EVENTS here for the
 * reports' seed, BENCH_IMPORTED_ROWS in imported-report-bench.ts, BENCH_EXPORT_ROWS in export-bench.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildTracker } from '#tracker/build.ts';
import { load, ownerSession, rps, startServer, type Server } from './service.ts';
import { clickHouseReportsBench, reportsBench } from './report-bench.ts';
import { clickHouseImportedReportsBench, importedReportsBench, importedRows } from './imported-report-bench.ts';
import { collectorBench, longCollectorBench, longRunSettings } from './collector-bench.ts';
import { collectorPhasesBench } from './collector-phases.ts';
import { collectorGrowthBench } from './collector-growth.ts';
import { clickHouseWriterBench, writerBench, writerSettings } from './writer-bench.ts';
import { clickHouseEnv, withClickHouse } from './clickhouse-bench.ts';
import { importBench } from './import-bench.ts';
import { apiReportsBench, clickHouseApiReportsBench, ingestBench } from './api-bench.ts';
import { clickHouseGoalsBench, goalsBench } from './goals-bench.ts';
import { bundleBench } from './bundle-bench.ts';
import { s3Bench } from './s3-bench.ts';
import { exportBench } from './export-bench.ts';
import { dashboardSizeBench } from './dashboard-bench.ts';
import { envNumber, fmt, RUNS, type BenchRow } from './stats.ts';
import { calibrate, calibrationRow } from './calibration.ts';

/**
 * A page for the verifier: every hostname serves the script tag and, at /latest.js, the tracker
 * build (a tracker proxied on the site, which verifies because it serves this service's script).
 */
async function startPageServer(): Promise<{ server: HttpServer; template: string }> {
  const { code } = await buildTracker();
  const server = createServer((req, res) => res.end(req.url?.endsWith('/latest.js') ? code : '<html><head><script src="/latest.js"></script></head></html>'));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return { server, template: `http://127.0.0.1:${(server.address() as AddressInfo).port}/{hostname}/` };
}

async function registryBench(server: Server): Promise<BenchRow[]> {
  const { auth, register } = await ownerSession(server);
  for (let i = 0; i < 20; i++) await register(`bench-${i}.example`);
  const list = await load(`${server.url}/api/sites`, { headers: auth });
  const one = await load(`${server.url}/api/sites/bench-3.example`, { headers: auth });
  return [
    { name: 'GET /api/sites (20 sites, ID token)', value: rps(list) },
    { name: 'GET /api/sites/{hostname} (owner)', value: rps(one) },
  ];
}

async function trackerBench(): Promise<BenchRow[]> {
  const { code } = await buildTracker();
  const gz = gzipSync(code, { level: 9 }).length;
  return [{ name: 'latest.js size', value: `${fmt(Buffer.byteLength(code))} B raw, ${fmt(gz)} B gzip`, budget: '≤ 2,048 B gzip', ok: gz <= 2048 }];
}

function render(rows: BenchRow[]): string {
  const lines = ['| benchmark | result | budget | within |', '| --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.value} | ${r.budget ?? '—'} | ${r.ok === undefined ? '—' : r.ok ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

const PARTS = ['tracker', 'dashboard', 'bundles', 'writer', 'writer-clickhouse', 'http', 'ingest', 'long', 'phases', 'growth', 'imports', 'imports-clickhouse', 'reports', 'reports-clickhouse', 'reports-imported', 'reports-imported-clickhouse', 'api-reports', 'api-reports-clickhouse', 'goals', 'goals-clickhouse', 'export', 's3'];

/** What docs/benchmarks.md says above the table: how each part was run. */
function header(total: number, only: ReadonlySet<string>): string {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const long = longRunSettings();
  const writer = writerSettings();
  return [
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${machine}).`,
    `HTTP load: autocannon, 20 connections, 5 s per run, against \`npm start\` in its own process (and the bare baseline in its own process). Throughput budgets (writer, collector share, import) are judged on the median of ${RUNS} runs, every run listed: this machine varies ±10–15 % from run to run. Reports: 25 sequential requests each (11 for each breakdown dimension and each filtered report: filter=country:DE, a fifth of the rows), the first (cold) one dropped; ${fmt(total)} events seeded over 90 days, the same rows in DuckDB and in ClickHouse (chDB, the server's engine as a library, behind a stand-in of its HTTP interface that runs one statement at a time).`,
    only.has('long') &&
      `Long collector run: \`npm start\` (durable receipt) loaded over ${long.connections} connections for ${fmt(long.seconds)} s or until ${fmt(long.max)} beacons are answered, each beacon a new pageview with an id of its own from one of 5,000 visitors (user agents), over 6 paths, 5 referrers and 4 timezones (traffic.ts), on one UTC day (the run waits for 00:00 UTC rather than cross it); read every ${fmt(long.minute)} s: throughput as a share of the bare server's (mean of ${fmt(long.minute)} s before and after the long run, same load) and the server process's CPU time (utime + stime over all its threads, /proc/<pid>/stat) per beacon answered, against the bare server's per request. The CPU the writer spends draining the queue after the last reading is not counted. Afterwards the server is stopped and its DuckDB file must hold every beacon answered 2xx exactly once.`,
    only.has('phases') &&
      'Phases: the collector route\'s dispatch in-process over a local node\'s services (no HTTP): each ingest step\'s time as the runner measures it (one beacon at a time), then CPU of every thread per beacon, each configuration adding to the one before (a queue that drops its batches, the same journaled, the node\'s own queue and writer); and a bare node:http server that busy-waits a fixed time per request, at full load, against the bare one (collector-phases.ts).',
    only.has('growth') &&
      'Growth: real traffic (a new id per beacon, 5,000 visitors) through the collector route in-process over the node\'s own queue, journal and DuckDB writer until the day holds 2,000,000 rows, CPU of every thread per beacon by slice (collector-growth.ts).',
    only.has('bundles') &&
      'Lambda bundles: each function built as the stack builds it (lib/node-function.ts); own code is the bundle without the AWS SDK, minified; "ready" is the median over 9 fresh Node processes of `import()` to an exported handler, with the AWS SDK bundled and with it loaded from node_modules as the Lambda runtime provides it; source maps: the deployed way with maps written and `--enable-source-maps`, against none.',
    only.has('reports') &&
      'Dashboard: the overview of the largest site (default 30 days) loaded in headless Chromium against the DuckDB server of the reports part, with the owner\'s token in the tab, timed from navigation until the totals, the chart and every breakdown panel are filled; median of 5 loads after a first one.',
    (only.has('writer-clickhouse') || only.has('imports-clickhouse')) &&
      'ClickHouse writer and import: the same rows and export as DuckDB\'s, into chDB behind its HTTP stand-in in the bench\'s process (one statement at a time, each run a database of its own); the writer through the local queue in-process, the imports through `npm start` with CLICKHOUSE_URL.',
    (only.has('goals') || only.has('goals-clickhouse')) &&
      `Goals (goals-bench.ts): the reports' seed of ${fmt(total)} events, its largest site with five goals (an exact path, two wildcards, two events) and a 4-step funnel whose three page steps are broad wildcards (the hits of any step are over half the site's rows), and event_10's metadata; each asked 12 times over HTTP against \`npm start\`, the first dropped (its time is shown: a range's first read builds the daily rollups of its subject, which later reads sum). The seed's 90 days are all inside the 365-day range.`,
    (only.has('reports-imported') || only.has('reports-imported-clickhouse')) &&
      `Imported reports (imported-report-bench.ts, issue 43): one site holding ${fmt(importedRows())} rows as the Simple Analytics import stores them (no visitor hash; every tenth an event, a third of the pageviews unique), evenly over the 365 days before today, made with SQL (DuckDB: through the writer's insert, saveSelected; ClickHouse: one INSERT … SELECT, copies listed, parts merged); then a real import of 2,200 more rows over the same days through the API, the first 365-day overview right after it succeeds, and every report for the last 30 and 365 days through \`npm start\`: median of 30 requests after a first one (shown apart).`,
    only.has('export') &&
      `Export (export-bench.ts): ${fmt(envNumber('BENCH_EXPORT_ROWS', 10_000_000))} rows of one site (the reports' seed shape on one site), exported as CSV and as NDJSON through \`npm start\` and read to the end by the bench as fast as they come; the server's RSS sampled every 50 ms during each export; the budget (issue 42, 200 MB) is on what the export adds at its peak over the RSS just before it (the server's own baseline is listed beside it).`,
    only.has('s3') &&
      `S3 store (s3-bench.ts): in-process against s3rver and dynalite on this machine (local disk, no network): the writer's rows/s into one day, that day's compaction, and the overview page's reports over a site of ${fmt(envNumber('BENCH_S3_SITE_ROWS', 10_000_000))} rows (one file a day over 365 days), medians of 10 warm reads after a first, and of 3 reads each by a new reader (empty mirror and object cache).`,
    only.has('writer') &&
      `Writer: ${fmt(writer.rows)} rows through the local queue into an empty store and onto a store already holding ${fmt(writer.prefill)} rows of the same UTC day (made with SQL, stored through saveSelected, the store closed and reopened), ${RUNS} alternating rounds, each in a process of its own; the reopen's time and the RSS it adds are listed.`,
  ]
    .filter(Boolean)
    .join('\n');
}

export async function runBenchmarks(): Promise<void> {
  const total = envNumber('BENCH_EVENTS', 10_000_000);
  const pages = await startPageServer();
  const rows: BenchRow[] = [];
  // BENCH_ONLY=long (or writer,http,…: see PARTS) runs some parts while iterating; the default runs all.
  const only = new Set(process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',') : PARTS);
  const unknown = [...only].filter((p) => !PARTS.includes(p));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown part ${unknown.join(', ')} (parts: ${PARTS.join(', ')})`);
  const before = await calibrate();
  try {
    if (only.has('tracker')) rows.push(...(await trackerBench()));
    if (only.has('dashboard')) rows.push(...(await dashboardSizeBench()));
    if (only.has('bundles')) rows.push(...(await bundleBench()));
    if (only.has('writer')) rows.push(...(await writerBench()));
    if (only.has('writer-clickhouse')) rows.push(...(await clickHouseWriterBench()));
    if (only.has('http')) {
      const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-'));
      const undurableDir = mkdtempSync(join(tmpdir(), 'tt-bench-'));
      const server = await startServer(dataDir, pages.template);
      const undurable = await startServer(undurableDir, pages.template, { DURABLE_RECEIPT: '0' });
      try {
        rows.push(...(await registryBench(server)), ...(await collectorBench(server, undurable)));
        rows.push({ name: 'server RSS after registry and collector load', value: `${server.rssMb().toFixed(0)} MiB` });
      } finally {
        await Promise.all([server.stop(), undurable.stop()]);
        rmSync(dataDir, { recursive: true, force: true });
        rmSync(undurableDir, { recursive: true, force: true });
      }
    }
    if (only.has('ingest')) rows.push(...(await ingestBench(pages.template)));
    if (only.has('long')) rows.push(...(await longCollectorBench(pages.template)));
    if (only.has('phases')) rows.push(...(await collectorPhasesBench()));
    if (only.has('growth')) rows.push(...(await collectorGrowthBench()));
    if (only.has('imports')) rows.push(...(await importBench(pages.template)));
    if (only.has('imports-clickhouse')) {
      let run = 0;
      // One stand-in for every run, a database of its own each.
      const imports = await withClickHouse('unused', (settings) =>
        importBench(pages.template, 'ClickHouse (chDB)', async () => ({ env: clickHouseEnv(settings, `import_${run++}`), close: async () => undefined })),
      );
      rows.push(...imports);
    }
    if (only.has('reports')) rows.push(...(await reportsBench(pages.template, total)));
    if (only.has('reports-clickhouse')) rows.push(...(await clickHouseReportsBench(pages.template, total)));
    if (only.has('reports-imported')) rows.push(...(await importedReportsBench(pages.template)));
    if (only.has('reports-imported-clickhouse')) rows.push(...(await clickHouseImportedReportsBench(pages.template)));
    if (only.has('api-reports')) rows.push(...(await apiReportsBench(pages.template)));
    if (only.has('api-reports-clickhouse')) rows.push(...(await clickHouseApiReportsBench(pages.template)));
    if (only.has('goals')) rows.push(...(await goalsBench(pages.template, total)));
    if (only.has('goals-clickhouse')) rows.push(...(await clickHouseGoalsBench(pages.template, total)));
    if (only.has('export')) rows.push(...(await exportBench(pages.template)));
    if (only.has('s3')) rows.push(...(await s3Bench()));
  } finally {
    pages.server.close();
  }
  rows.unshift(calibrationRow(before, await calibrate()));
  const table = render(rows);
  console.log(table);
  if (process.env.BENCH_ONLY) writePartialRun(process.env.BENCH_ONLY, `${header(total, only)}\n\n${table}`);
  else writeFileSync(BENCHMARKS, `# Benchmarks\n\n${header(total, only)}\n\n${table}\n`);
}

const BENCHMARKS = 'docs/benchmarks.md';

/**
 * A partial run (BENCH_ONLY) keeps the last full run's table and adds its own section after it,
 * replacing the section of an earlier run of the same parts.
 */
function writePartialRun(parts: string, body: string): void {
  const heading = `## Partial run: BENCH_ONLY=${parts}`;
  const before = existsSync(BENCHMARKS) ? readFileSync(BENCHMARKS, 'utf8') : '# Benchmarks\n';
  const sections = before.split(/\n(?=## )/).filter((section) => !section.startsWith(`${heading}\n`));
  writeFileSync(BENCHMARKS, `${[...sections.map((x) => x.trimEnd()), `${heading}\n\n${body}`].join('\n\n')}\n`);
}
