/**
 * `npm run bench`: the budgets of DESIGN.md §6, measured on this machine and
 * written to docs/benchmarks.md. Servers run in their own processes; load
 * comes from autocannon in this one. A missed budget is reported, not hidden.
 * BENCH_ONLY=tracker,bundles,writer,http,long,imports,reports runs some parts
 * while iterating (the default runs all); each part's file documents its own
 * settings (collector-bench.ts, writer-bench.ts, BENCH_EVENTS here for the
 * reports' seed).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildTracker } from '#tracker/build.ts';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { registrationKey } from '#domain/registration.ts';
import { BENCH_OWNER, load, ownerSession, rps, startServer, type Server } from './service.ts';
import { collectorBench, longCollectorBench, longRunSettings } from './collector-bench.ts';
import { writerBench, writerSettings } from './writer-bench.ts';
import { importBench } from './import-bench.ts';
import { bundleBench } from './bundle-bench.ts';
import { envNumber, fmt, RUNS, type BenchRow } from './stats.ts';
import { dimensionColumns } from './seed-columns.ts';

/** A page for the verifier: every hostname serves the script tag (a tracker proxied on the site, which verifies). */
async function startPageServer(): Promise<{ server: HttpServer; template: string }> {
  const server = createServer((_, res) => res.end('<html><head><script src="/latest.js"></script></head></html>'));
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

const SEED_SITES = 50;
const SEED_DAYS = 90;
/** Rows handed to the store at once while seeding: about a day of the seeded traffic. */
const SEED_CHUNK = 100_000;

/**
 * 10 million events over 90 days and 50 sites, made with SQL and handed to
 * the store in arrival (ts) order through the writer's own insert statement
 * (saveSelected), so flags and compaction are as in production; the
 * appender path is measured separately. Site shares follow a 1/rank curve,
 * so site-0 is the largest.
 */
export async function seedReports(dataDir: string, total: number): Promise<void> {
  const store = await DuckDbEventStore.open(join(dataDir, 'events.duckdb'));
  const end = Date.now();
  const start = end - SEED_DAYS * 86_400_000;
  const weights = Array.from({ length: SEED_SITES }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  let cumulative = 0;
  const cuts = weights.map((w) => (cumulative += w / sum));
  const siteCase = cuts.map((c, i) => `WHEN r < ${c.toFixed(6)} THEN 'site-${i}.example'`).join(' ');
  // The rows of the bench owner's registrations, which the reports bench registers again (bench-owner, see ownerSession).
  const registrationCase = weights.map((_, i) => `WHEN 'site-${i}.example' THEN '${registrationKey(BENCH_OWNER, `site-${i}.example`)}'`).join(' ');
  const seed = join(dataDir, 'seed.duckdb');
  await store.query(`ATTACH '${seed}' AS seed`);
  await store.query(`
    CREATE TABLE seed.rows AS
    SELECT * EXCLUDE (r, page), CASE site ${registrationCase} END AS registration, row_number() OVER (ORDER BY ts) AS n FROM (SELECT CASE ${siteCase} ELSE 'site-${SEED_SITES - 1}.example' END AS site,
      ${start} + (page * 7919 % ${end - start}) + CASE WHEN i % 10 = 1 THEN (i % 120) * 1000 ELSE 0 END AS ts,
      CASE WHEN i % 10 = 0 THEN 'event' WHEN i % 10 = 1 THEN 'append' ELSE 'pageview' END AS kind,
      'e' || i AS id,
      CASE WHEN i % 10 = 1 THEN 'e' || page END AS original_id,
      CASE WHEN i % 10 = 0 THEN 'event_' || (i % 30) END AS event,
      'v' || (i % 200000) AS visitor, i % 5 = 0 AS "unique", NULL AS page_id, NULL AS session_id,
      '/page/' || (i % 500) AS path, NULL AS query, NULL AS referrer,${dimensionColumns('i')}
      CASE WHEN i % 10 = 1 THEN i % 120 END AS duration, CASE WHEN i % 10 = 1 THEN i % 101 END AS scrolled,
      i % 50 = 0 AS bot, NULL AS metadata, true AS https, false AS imported, NULL AS source_id, r, page
    -- An append (i % 10 = 1) belongs to the pageview two rows before it: same site, seconds later.
    FROM (SELECT i, page, hash(page) % 1000000 / 1000000.0 AS r FROM (SELECT i, CASE WHEN i % 10 = 1 THEN i - 2 ELSE i END AS page FROM range(${total}) t(i))))`);
  // In arrival order, a day's worth at a time, through the writer's own statement (flags, compaction).
  for (let first = 1; first <= total; first += SEED_CHUNK) {
    await store.saveSelected(`SELECT * EXCLUDE (n) FROM seed.rows WHERE n BETWEEN ${first} AND ${first + SEED_CHUNK - 1}`);
  }
  await store.query('DETACH seed');
  rmSync(seed, { force: true });
  await store.close();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

async function reportsBench(pages: string, total: number): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-reports-'));
  try {
    const seeded = performance.now();
    await seedReports(dataDir, total);
    const seedSeconds = (performance.now() - seeded) / 1000;
    const server = await startServer(dataDir, pages);
    try {
      const { auth, register } = await ownerSession(server);
      await register('site-0.example');
      const to = Math.floor(Date.now() / 1000);
      const from = to - 30 * 86400;
      const base = `${server.url}/api/sites/site-0.example`;
      const reports: [string, string][] = [
        ['overview', `${base}/overview?from=${from}&to=${to}&tz=Europe/Berlin`],
        ['breakdown pages', `${base}/breakdown?dim=pages&from=${from}&to=${to}`],
        ['breakdown sources', `${base}/breakdown?dim=sources&from=${from}&to=${to}`],
        ['overview summary', `${base}/overview/summary?from=${from}&to=${to}&tz=Europe/Berlin`],
      ];
      const rows: BenchRow[] = [{ name: `seeded ${fmt(total)} events, ${SEED_SITES} sites, ${SEED_DAYS} days`, value: `${seedSeconds.toFixed(1)} s` }];
      let peak = 0;
      for (const [name, url] of reports) {
        const times: number[] = [];
        for (let i = 0; i < 25; i++) {
          const t = performance.now();
          const r = await fetch(url, { headers: auth });
          if (r.status !== 200) throw new Error(`${name}: ${r.status} ${await r.text()}`);
          await r.arrayBuffer();
          if (i > 0) times.push(performance.now() - t);
          peak = Math.max(peak, server.rssMb());
        }
        times.sort((a, b) => a - b);
        const median = percentile(times, 0.5);
        rows.push({ name: `${name}, 30 days of the largest site`, value: `median ${median.toFixed(0)} ms, p95 ${percentile(times, 0.95).toFixed(0)} ms`, budget: 'median < 150 ms', ok: median < 150 });
      }
      rows.push({ name: 'server RSS during the report runs (peak)', value: `${peak.toFixed(0)} MiB` });
      return rows;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function render(rows: BenchRow[]): string {
  const lines = ['| benchmark | result | budget | within |', '| --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.value} | ${r.budget ?? '—'} | ${r.ok === undefined ? '—' : r.ok ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

const PARTS = ['tracker', 'bundles', 'writer', 'http', 'long', 'imports', 'reports'];

/** What docs/benchmarks.md says above the table: how each part was run. */
function header(total: number, only: ReadonlySet<string>): string {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  const long = longRunSettings();
  const writer = writerSettings();
  return [
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${machine}).`,
    `HTTP load: autocannon, 20 connections, 5 s per run, against \`npm start\` in its own process (and the bare baseline in its own process). Throughput budgets (writer, collector share, import) are judged on the median of ${RUNS} runs, every run listed: this machine varies ±10–15 % from run to run. Reports: 25 sequential requests each, the first (cold) one dropped; ${fmt(total)} events seeded over 90 days.`,
    only.has('long') &&
      `Long collector run: \`npm start\` (durable receipt) loaded over ${long.connections} connections for ${fmt(long.seconds)} s or until ${fmt(long.max)} beacons are answered, each beacon a new pageview, on one UTC day (the run waits for 00:00 UTC rather than cross it); read every ${fmt(long.minute)} s: throughput as a share of the bare server's (mean of ${fmt(long.minute)} s before and after the long run, same load) and the server process's CPU time (utime + stime over all its threads, /proc/<pid>/stat) per beacon answered, against the bare server's per request. The CPU the writer spends draining the queue after the last reading is not counted. Afterwards the server is stopped and its DuckDB file must hold every beacon answered 2xx exactly once.`,
    only.has('bundles') &&
      'Lambda bundles: each function built as the stack builds it (lib/node-function.ts); own code is the bundle without the AWS SDK, minified; "ready" is the median over 9 fresh Node processes of `import()` to an exported handler, with the AWS SDK bundled and with it loaded from node_modules as the Lambda runtime provides it; source maps: the deployed way with maps written and `--enable-source-maps`, against none.',
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
  try {
    if (only.has('tracker')) rows.push(...(await trackerBench()));
    if (only.has('bundles')) rows.push(...(await bundleBench()));
    if (only.has('writer')) rows.push(...(await writerBench()));
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
    if (only.has('long')) rows.push(...(await longCollectorBench(pages.template)));
    if (only.has('imports')) rows.push(...(await importBench(pages.template)));
    if (only.has('reports')) rows.push(...(await reportsBench(pages.template, total)));
  } finally {
    pages.server.close();
  }
  const table = render(rows);
  console.log(table);
  writeFileSync('docs/benchmarks.md', `# Benchmarks\n\n${header(total, only)}\n\n${table}\n`);
}
