/**
 * The reports over 10 million events, the same rows on DuckDB and on
 * ClickHouse (chDB behind a stand-in of its HTTP interface), each through
 * `npm start` in its own process: every report for 30 and 365 days of the
 * largest site, median and p95 against DESIGN.md §6's 50 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { registrationKey } from '#domain/registration.ts';
import { BREAKDOWN_DIMS } from '#domain/reports/query.ts';
import { clickHouseEnv, withClickHouse, type ClickHouseSettings } from './clickhouse-bench.ts';
import { BENCH_OWNER, ownerSession, startServer, type Server } from './service.ts';
import { fmt, timedGets, type BenchRow } from './stats.ts';
import { dimensionColumns } from './seed-columns.ts';
import { dashboardRenderBench } from './dashboard-bench.ts';
import { beaconBody } from './collector-bench.ts';
import { log } from '#platform/log.ts';

const SEED_SITES = 50;
const SEED_DAYS = 90;
/** Rows handed to the store at once while seeding: about a day of the seeded traffic. */
const SEED_CHUNK = 100_000;
export const REPORT_BUDGET_MS = 50;
/** How long a beacon takes to be stored and its day marked: the local queue sends a partial batch after 50 ms, and the writer stores it in well under the rest. */
const BATCH_SETTLE_MS = 500;
/** The filtered reports' filter: one country of the seed's five. */
const FILTER = 'country:DE';

/** The seed's shape, in either engine's SQL: site shares follow a 1/rank curve, so site-0 is the largest. */
function seedShape(hash: (expr: string) => string, text: (expr: string) => string, sites = SEED_SITES) {
  const end = Date.now();
  const start = end - SEED_DAYS * 86_400_000;
  const weights = Array.from({ length: sites }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  let cumulative = 0;
  const cuts = weights.map((w) => (cumulative += w / sum));
  const siteCase = cuts.map((c, i) => `WHEN r < ${c.toFixed(6)} THEN 'site-${i}.example'`).join(' ');
  // The rows of the bench owner's registrations, which the reports bench registers again (bench-owner, see ownerSession).
  const registrationCase = weights.map((_, i) => `WHEN 'site-${i}.example' THEN '${registrationKey(BENCH_OWNER, `site-${i}.example`)}'`).join(' ');
  const rows = (numbers: string) => `
    SELECT CASE ${siteCase} ELSE 'site-${sites - 1}.example' END AS site,
      ${start} + (page * 7919 % ${end - start}) + CASE WHEN i % 10 = 1 THEN (i % 120) * 1000 ELSE 0 END AS ts,
      CASE WHEN i % 10 = 0 THEN 'event' WHEN i % 10 = 1 THEN 'append' ELSE 'pageview' END AS kind,
      'e' || ${text('i')} AS id,
      CASE WHEN i % 10 = 1 THEN 'e' || ${text('page')} END AS original_id,
      CASE WHEN i % 10 = 0 THEN 'event_' || ${text('i % 30')} END AS event,
      'v' || ${text('i % 200000')} AS visitor, i % 5 = 0 AS "unique", NULL AS page_id, NULL AS session_id,
      '/page/' || ${text('i % 500')} AS path, NULL AS query, NULL AS referrer,${dimensionColumns('i')}
      CASE WHEN i % 10 = 1 THEN i % 120 END AS duration, CASE WHEN i % 10 = 1 THEN i % 101 END AS scrolled,
      i % 50 = 0 AS bot,
      CASE WHEN i % 10 = 0 THEN '{"plan":"p' || ${text('i % 7')} || '","seats":' || ${text('i % 100')} || '}' END AS metadata, true AS https, false AS imported, NULL AS source_id, r, page
    -- An append (i % 10 = 1) belongs to the pageview two rows before it: same site, seconds later.
    FROM (SELECT i, page, ${hash('page')} % 1000000 / 1000000.0 AS r FROM (SELECT i, CASE WHEN i % 10 = 1 THEN i - 2 ELSE i END AS page FROM ${numbers}))`;
  return { rows, registrationCase };
}

/**
 * 10 million events over 90 days and 50 sites (or `sites`: 1 puts every row on site-0), made with SQL and handed to
 * the DuckDB store in arrival (ts) order through the writer's own insert
 * statement (saveSelected), so flags and compaction are as in production.
 */
export async function seedReports(dataDir: string, total: number, { sites = SEED_SITES } = {}): Promise<void> {
  const store = await DuckDbEventStore.open(join(dataDir, 'events.duckdb'), { log });
  const { rows, registrationCase } = seedShape((e) => `hash(${e})`, (e) => `(${e})`, sites);
  const seed = join(dataDir, 'seed.duckdb');
  await store.query(`ATTACH '${seed}' AS seed`);
  await store.query(`
    CREATE TABLE seed.rows AS
    SELECT * EXCLUDE (r, page), CASE site ${registrationCase} END AS registration, row_number() OVER (ORDER BY ts) AS n
    FROM (${rows(`range(${total}) t(i)`)})`);
  for (let first = 1; first <= total; first += SEED_CHUNK) {
    await store.saveSelected(`SELECT * EXCLUDE (n) FROM seed.rows WHERE n BETWEEN ${first} AND ${first + SEED_CHUNK - 1}`);
  }
  await store.query('DETACH seed');
  rmSync(seed, { force: true });
  await store.close();
}

/** The same rows into ClickHouse with one INSERT … SELECT (the store is append-only: nothing to decide per batch but its copies, listed after). */
export async function seedClickHouse(store: ClickHouseEventStore, total: number): Promise<void> {
  const { rows, registrationCase } = seedShape((e) => `cityHash64(${e})`, (e) => `toString(${e})`);
  await insertClickHouseRows(store, `SELECT *, CASE site ${registrationCase} END AS registration FROM (${rows(`(SELECT number AS i FROM numbers(${total}))`)})`);
}

const STORED_COLUMNS = `site, registration, ts, kind, id, original_id, event, visitor, "unique", page_id, session_id, path, query, referrer,
      referrer_host, utm_source, utm_medium, utm_campaign, utm_term, utm_content, source, country, browser, os, device, language,
      viewport_width, viewport_height, screen_width, screen_height, duration, scrolled, bot, metadata, https, imported, source_id`;

/** The rows of `select` (every stored column, named as the table names them) into the store's table with one INSERT … SELECT. */
export async function insertClickHouseRows(store: ClickHouseEventStore, select: string): Promise<void> {
  await store.executor.command(`INSERT INTO ${store.table} (${STORED_COLUMNS}) SELECT ${STORED_COLUMNS} FROM (${select})`);
}

/** Every report of the largest site for 30 and 365 days: median and p95 of the requests after the first. */
async function measureReports(server: Server, engine: string): Promise<BenchRow[]> {
  const { auth, register } = await ownerSession(server);
  await register('site-0.example');
  const to = Math.floor(Date.now() / 1000);
  const base = `${server.url}/api/sites/site-0.example`;
  const rows: BenchRow[] = [];
  let peak = 0;
  const timeRequests = (url: string, n: number, before?: () => Promise<void>) =>
    timedGets(url, auth, n, { before, after: () => (peak = Math.max(peak, server.rssMb())) });
  for (const days of [30, 365]) {
    const range = `from=${to - days * 86400}&to=${to}`;
    const reports: [string, string, number][] = [
      ['overview', `${base}/overview?${range}&tz=Europe/Berlin`, 25],
      ['overview summary', `${base}/overview/summary?${range}&tz=Europe/Berlin`, 25],
      ['retention', `${base}/retention?${range}`, 25],
      ...BREAKDOWN_DIMS.map((dim): [string, string, number] => [`breakdown ${dim}`, `${base}/breakdown?dim=${dim}&${range}`, 11]),
      // Filtered: a fifth of the rows (country DE); DuckDB builds that clause's own rollups on the first request, ClickHouse reads its rows.
      ...(['overview', 'overview/summary', 'retention', 'breakdown?dim=pages'] as const).map((report): [string, string, number] => [
        `${report.replace('/', ' ').replace('breakdown?dim=', 'breakdown ')}, filtered (country DE)`,
        `${base}/${report}${report.includes('?') ? '&' : '?'}${range}&tz=Europe/Berlin&filter=${encodeURIComponent(FILTER)}`,
        11,
      ]),
    ];
    for (const [name, url, n] of reports) {
      const { median, summary } = await timeRequests(url, n);
      rows.push({ name: `${engine}: ${name}, ${days} days of the largest site`, value: summary, budget: `median < ${REPORT_BUDGET_MS} ms`, ok: median < REPORT_BUDGET_MS });
    }
  }
  // A busy site: a batch lands between every two reports, so no answer kept from the last one stands (listed, not judged).
  const beforeEach = async () => {
    const r = await fetch(`${server.url}/events`, { method: 'POST', body: beaconBody('site-0.example'), headers: { 'content-type': 'application/json' } });
    if (!r.ok) throw new Error(`beacon: ${r.status}`);
    await new Promise((done) => setTimeout(done, BATCH_SETTLE_MS));
  };
  for (const report of ['overview', 'overview/summary'] as const) {
    const { summary } = await timeRequests(`${base}/${report}?from=${to - 30 * 86400}&to=${to}&tz=Europe/Berlin`, 11, beforeEach);
    rows.push({ name: `${engine}: ${report.replace('/', ' ')}, 30 days of the largest site, a beacon stored before each request`, value: summary });
  }
  rows.push({ name: `${engine}: server RSS during the report runs (peak)`, value: `${peak.toFixed(0)} MiB` });
  return rows;
}

export async function reportsBench(pages: string, total: number): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-reports-'));
  try {
    const seeded = performance.now();
    await seedReports(dataDir, total);
    const seed: BenchRow = { name: `DuckDB: seeded ${fmt(total)} events, ${SEED_SITES} sites, ${SEED_DAYS} days`, value: `${((performance.now() - seeded) / 1000).toFixed(1)} s` };
    const server = await startServer(dataDir, pages);
    try {
      const reports = await measureReports(server, 'DuckDB');
      const { token } = await ownerSession(server);
      return [seed, ...reports, ...(await dashboardRenderBench(server, 'site-0.example', token, 'DuckDB'))];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A ClickHouse store in `settings`' database filled by `seed` as the bench fills it: its rows stored
 * by SQL, their copies listed as a batch's would be, its parts merged; the rows saying how long each
 * step took and what a trivial statement costs through the stand-in.
 */
export async function seededClickHouse(settings: ClickHouseSettings, label: string, seed: (store: ClickHouseEventStore) => Promise<void>): Promise<BenchRow[]> {
  // The seed is one INSERT … SELECT of every row: far past the client's default 30 s request limit.
  const store = await ClickHouseEventStore.open(clickHouseHttpExecutor({ ...settings, requestTimeoutMs: 30 * 60_000 }), settings.database, log);
  try {
    const seeded = performance.now();
    await seed(store);
    // Rows stored by SQL, not through saveEvents: their copies are listed as a batch's would be.
    const listing = performance.now();
    await store.listStoredIn(0, Date.now() + 86_400_000);
    const merging = performance.now();
    // One bulk insert leaves many parts that merge in the background for minutes, competing with the reports for the CPU: a store filled batch by batch has merged them as it went.
    await store.executor.command(`OPTIMIZE TABLE ${store.table} FINAL`);
    const seedRow: BenchRow = {
      name: `ClickHouse (chDB): seeded ${label} (then its copies listed and its parts merged)`,
      value: `${((listing - seeded) / 1000).toFixed(1)} s (list ${((merging - listing) / 1000).toFixed(1)} s, merge ${((performance.now() - merging) / 1000).toFixed(1)} s)`,
    };
    // What the stand-in and the HTTP client add to each statement, which a report runs several of one after another.
    const trip = performance.now();
    for (let i = 0; i < 20; i++) await store.executor.query('SELECT {n:UInt32} AS n', { n: i });
    const roundTrip: BenchRow = { name: 'ClickHouse (chDB): round trip of a trivial statement through the HTTP stand-in (in every figure below, per statement)', value: `${((performance.now() - trip) / 20).toFixed(1)} ms` };
    return [seedRow, roundTrip];
  } finally {
    await store.close();
  }
}

export async function clickHouseReportsBench(pages: string, total: number): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-reports-ch-'));
  try {
    return await withClickHouse('bench', async (settings) => {
      const seed = await seededClickHouse(settings, `${fmt(total)} events, ${SEED_SITES} sites, ${SEED_DAYS} days`, (store) => seedClickHouse(store, total));
      const server = await startServer(dataDir, pages, clickHouseEnv(settings));
      try {
        return [...seed, ...(await measureReports(server, 'ClickHouse (chDB)'))];
      } finally {
        await server.stop();
      }
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
