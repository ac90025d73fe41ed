/**
 * The reports over a year of imported history (issue 43): one site holding
 * BENCH_IMPORTED_ROWS (10 million by default) rows as the Simple Analytics
 * import stores them (no visitor hash, `unique` per pageview, duration and
 * scroll on the pageview itself, `imported` set) spread evenly over the 365
 * days before today, on DuckDB and on ClickHouse (chDB behind its HTTP
 * stand-in), each through `npm start` in its own process.
 *
 * The rows are made with SQL: through the writer's own insert (saveSelected,
 * the statement an import's writes use) on DuckDB, one INSERT … SELECT on
 * ClickHouse. Then a real import of a small export over the same 365 days
 * runs through the API, so whatever an import's end triggers runs over the
 * whole year, and the first 365-day overview is timed right after it
 * succeeds. Then every report: the median of 30 requests after a first one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { registrationKey } from '#domain/registration.ts';
import { BREAKDOWN_DIMS } from '#domain/reports/query.ts';
import { planChunks } from '#domain/imports/planner.ts';
import { log } from '#platform/log.ts';
import { generateDataset, startFakeSimpleAnalytics } from '../support/fake-simpleanalytics.ts';
import { clickHouseEnv, withClickHouse } from './clickhouse-bench.ts';
import { day, importAndWait } from './import-bench.ts';
import { insertClickHouseRows, seededClickHouse, REPORT_BUDGET_MS } from './report-bench.ts';
import { dimensionColumns } from './seed-columns.ts';
import { BENCH_OWNER, ownerSession, startServer, type Server } from './service.ts';
import { budgetRow, envNumber, fmt, timedGets, type BenchRow } from './stats.ts';

const SITE = 'imported.example';
const DAYS = 365;
const FIRST_OVERVIEW_BUDGET_MS = 1000;
/** Requests per report: the first is shown apart, the median is of the other 30. */
const REQUESTS = 31;
/** Rows handed to the DuckDB writer per statement while seeding. */
const SEED_CHUNK = 500_000;
/** The export the real import reads: its own rows over the same year, few, so its time is what the import's end costs. */
const IMPORT_SOURCE = 'old-imported.example';
const IMPORT_PAGEVIEWS = 2_000;
const IMPORT_EVENTS = 200;

/** How many rows the part seeds (BENCH_IMPORTED_ROWS: 1,000,000 while iterating). */
export const importedRows = () => envNumber('BENCH_IMPORTED_ROWS', 10_000_000);

/**
 * Imported rows numbered `i` by `numbers` (of `total`), in either engine's SQL (`text` casts to text, `div` divides integers):
 * row i at the i-th `total`th of the year, every tenth an event, a third of the pageviews unique.
 */
function importedRowsSql(total: number, numbers: string, text: (e: string) => string, div: (a: string, b: string) => string): string {
  const end = Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const start = end - DAYS * 86_400_000;
  return `
    SELECT '${SITE}' AS site, '${registrationKey(BENCH_OWNER, SITE)}' AS registration, ${start} + ${div(`i * ${end - start}`, String(total))} AS ts,
      CASE WHEN i % 10 = 0 THEN 'event' ELSE 'pageview' END AS kind, 'import:bench-seed:u' || ${text('i')} AS id, NULL AS original_id,
      CASE WHEN i % 10 = 0 THEN 'event_' || ${text('i % 30')} END AS event, NULL AS visitor, CASE WHEN i % 10 <> 0 THEN i % 3 = 0 END AS "unique",
      NULL AS page_id, NULL AS session_id, '/page/' || ${text('i % 500')} AS path, NULL AS query, NULL AS referrer,${dimensionColumns('i')}
      CASE WHEN i % 10 <> 0 THEN i % 120 END AS duration, CASE WHEN i % 10 <> 0 THEN i % 101 END AS scrolled, i % 50 = 0 AS bot,
      NULL AS metadata, NULL AS https, true AS imported, 'u' || ${text('i')} AS source_id
    FROM ${numbers}`;
}

export async function seedDuckDb(dataDir: string, total: number): Promise<void> {
  const store = await DuckDbEventStore.open(join(dataDir, 'events.duckdb'), { log });
  try {
    for (let first = 0; first < total; first += SEED_CHUNK) {
      const last = Math.min(total, first + SEED_CHUNK);
      await store.saveSelected(importedRowsSql(total, `range(${first}, ${last}) t(i)`, (e) => `(${e})::VARCHAR`, (a, b) => `(${a}) // ${b}`));
    }
  } finally {
    await store.close();
  }
}

function seedClickHouse(total: number) {
  return (store: Parameters<typeof insertClickHouseRows>[0]) =>
    insertClickHouseRows(store, importedRowsSql(total, `(SELECT number AS i FROM numbers(${total}))`, (e) => `toString(${e})`, (a, b) => `intDiv(${a}, ${b})`));
}

/** The reports measured for each range: [name, path and query after the site's base]. */
function reportsOf(range: string): [string, string][] {
  const filtered = (filter: string) => `${range}&filter=${encodeURIComponent(filter)}`;
  return [
    ['overview, UTC', `overview?${range}`],
    ['overview, Europe/Amsterdam', `overview?${range}&tz=Europe/Amsterdam`],
    ['overview, Asia/Kolkata (+5:30)', `overview?${range}&tz=Asia/Kolkata`],
    ['overview, Asia/Kathmandu (+5:45)', `overview?${range}&tz=Asia/Kathmandu`],
    ['overview, filter page~/', `overview?${filtered('page~/')}`],
    ['overview, filter country:DE', `overview?${filtered('country:DE')}`],
    ['overview, filter source:google.com', `overview?${filtered('source:google.com')}`],
    ['overview summary', `overview/summary?${range}`],
    ['overview summary, filter page~/', `overview/summary?${filtered('page~/')}`],
    ['retention', `retention?${range}`],
    ...BREAKDOWN_DIMS.map((dim): [string, string] => [`breakdown ${dim}`, `breakdown?dim=${dim}&${range}`]),
    ['breakdown pages, filter page~/', `breakdown?dim=pages&${filtered('page~/')}`],
  ];
}

/** The import's end, the first 365-day overview after it, then every report for the last 30 and 365 days. */
async function measureImported(server: Server, engine: string, total: number): Promise<BenchRow[]> {
  const { auth, register } = await ownerSession(server);
  await register(SITE);
  const base = `${server.url}/api/sites/${SITE}`;
  const job = await importAndWait(server.url, auth, SITE, IMPORT_SOURCE, day(-DAYS), day(-1));
  const seconds = (Date.parse(job.finished_at) - Date.parse(job.created_at)) / 1000;
  const to = Math.floor(Date.now() / 1000);
  const t = performance.now();
  const first = await fetch(`${base}/overview?from=${to - DAYS * 86400}&to=${to}`, { headers: auth });
  if (first.status !== 200) throw new Error(`first overview: ${first.status}`);
  await first.arrayBuffer();
  const firstMs = performance.now() - t;
  const rows: BenchRow[] = [
    { name: `${engine}: import of ${fmt(job.rows_imported)} more rows over the same ${DAYS} days through the API (created → succeeded)`, value: `${seconds.toFixed(1)} s` },
    { name: `${engine}: first overview, ${DAYS} days, UTC, right after the import`, value: `${firstMs.toFixed(0)} ms`, budget: `< ${FIRST_OVERVIEW_BUDGET_MS} ms`, ok: firstMs < FIRST_OVERVIEW_BUDGET_MS },
  ];
  let peak = 0;
  for (const days of [30, DAYS]) {
    for (const [name, path] of reportsOf(`from=${to - days * 86400}&to=${to}`)) {
      const timed = await timedGets(`${base}/${path}`, auth, REQUESTS, { after: () => (peak = Math.max(peak, server.rssMb())) });
      rows.push(budgetRow(`${engine}, ${fmt(total)} imported rows: ${name}, ${days} days`, timed, REPORT_BUDGET_MS));
    }
  }
  rows.push({ name: `${engine}: server RSS during the imported reports (peak)`, value: `${peak.toFixed(0)} MiB` });
  return rows;
}

/** A fake Simple Analytics export of the import's own rows, warmed, for `work`. */
async function withExport<T>(work: (saUrl: string) => Promise<T>): Promise<T> {
  const sa = await startFakeSimpleAnalytics();
  try {
    sa.setData(IMPORT_SOURCE, generateDataset(day(-DAYS), day(-1), IMPORT_PAGEVIEWS, IMPORT_EVENTS, 43));
    sa.warm(IMPORT_SOURCE, planChunks(day(-DAYS), day(-1)));
    return await work(sa.url);
  } finally {
    await sa.close();
  }
}

export async function importedReportsBench(pages: string): Promise<BenchRow[]> {
  const total = importedRows();
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-imported-'));
  try {
    const seeded = performance.now();
    await seedDuckDb(dataDir, total);
    const seed: BenchRow = { name: `DuckDB: seeded ${fmt(total)} imported rows, one site, ${DAYS} days`, value: `${((performance.now() - seeded) / 1000).toFixed(1)} s` };
    return await withExport(async (saUrl) => {
      const server = await startServer(dataDir, pages, { SIMPLEANALYTICS_BASE_URL: saUrl });
      try {
        return [seed, ...(await measureImported(server, 'DuckDB', total))];
      } finally {
        await server.stop();
      }
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function clickHouseImportedReportsBench(pages: string): Promise<BenchRow[]> {
  const total = importedRows();
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-imported-ch-'));
  try {
    return await withClickHouse('imported', async (settings) => {
      const seed = await seededClickHouse(settings, `${fmt(total)} imported rows, one site, ${DAYS} days`, seedClickHouse(total));
      return withExport(async (saUrl) => {
        const server = await startServer(dataDir, pages, { ...clickHouseEnv(settings), SIMPLEANALYTICS_BASE_URL: saUrl });
        try {
          return [...seed, ...(await measureImported(server, 'ClickHouse (chDB)', total))];
        } finally {
          await server.stop();
        }
      });
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
