/**
 * API analytics (issue 36) as owners' APIs and dashboards load it:
 * - ingest: POST /api/ingest with 100-item batches against `npm start`, items/s next to the bare node:http server's requests/s;
 * - API reports: the overview and the routes breakdown over 10 million request rows of one site spread over 365 days
 *   (many routes, statuses and consumers, durations with a long tail), 30 and 365 days, UTC and a local timezone,
 *   filtered and unfiltered, on DuckDB and on ClickHouse (chDB behind its HTTP stand-in), over HTTP as the dashboard asks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbApiRequests } from '#adapters/duckdb/duckdb-api-requests.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseApiRequests } from '#adapters/clickhouse/clickhouse-api-requests.ts';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';
import { registrationKey } from '#domain/registration.ts';
import { log } from '#platform/log.ts';
import { withBareServer } from './collector-bench.ts';
import { clickHouseEnv, withClickHouse } from './clickhouse-bench.ts';
import { BENCH_OWNER, load, ownerSession, startServer, type Server } from './service.ts';
import { budgetRow, envNumber, fmt, timedGets, type BenchRow } from './stats.ts';

const SITE = 'api-0.example';
const BATCH = 100;
const REPORT_BUDGET_MS = 50;

const batchBody = JSON.stringify({
  requests: Array.from({ length: BATCH }, (_, i) => ({ method: i % 3 ? 'GET' : 'POST', route: `/v1/things/{id}/part${i % 7}`, status: i % 20 ? 200 : 503, duration_ms: 5 + (i % 50), bytes_out: 512, consumer: `client-${i % 4}` })),
});

/** Registers the API site as the bench owner (no verification: an API site needs none) and makes a site API key. */
async function apiSite(server: Server): Promise<{ auth: Record<string, string>; key: string }> {
  const { auth } = await ownerSession(server);
  await fetch(`${server.url}/api/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ hostname: SITE, kind: 'api' }) });
  const key = (await (await fetch(`${server.url}/api/sites/${SITE}/keys`, { method: 'POST', headers: auth, body: '{}' })).json()) as { key: string };
  return { auth, key: key.key };
}

export async function ingestBench(pages: string): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-ingest-'));
  const server = await startServer(dataDir, pages);
  try {
    const { key } = await apiSite(server);
    const ingest = await load(`${server.url}/api/ingest`, { method: 'POST', body: batchBody, headers: { authorization: `Bearer ${key}` } });
    const bare = await withBareServer((url) => load(url, { method: 'POST', body: batchBody }));
    const items = ingest.requests.average * BATCH;
    return [
      {
        name: `POST /api/ingest, ${BATCH}-item batches (site API key, durable receipt)`,
        value: `${fmt(items)} items/s (${fmt(ingest.requests.average)} req/s, p50 ${ingest.latency.p50} ms, p99 ${ingest.latency.p99} ms); bare node:http with the same body: ${fmt(bare.requests.average)} req/s`,
      },
    ];
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The seed in either dialect: `n` rows over the 365 days before now. */
function seedSelect(dialect: 'duckdb' | 'clickhouse', total: number): string {
  const end = Date.now();
  const span = 365 * 86_400_000;
  const registration = registrationKey(BENCH_OWNER, SITE);
  const d = dialect === 'duckdb';
  const hash = (e: string) => (d ? `hash(${e})` : `cityHash64(${e})`);
  const text = (e: string) => (d ? `CAST(${e} AS VARCHAR)` : `toString(${e})`);
  const pick = (list: string[], e: string) => `[${list.join(', ')}][1 + ${d ? `CAST(${e} AS BIGINT)` : `(${e})`}]`;
  const numbers = d ? `range(${total}) t(i)` : `(SELECT number AS i FROM numbers(${total}))`;
  return `
    SELECT '${SITE}' AS site, '${registration}' AS registration,
      ${end - span} + ${d ? `CAST(i AS BIGINT)` : 'toInt64(i)'} * ${Math.floor(span / total)} AS ts,
      'r' || ${text('i')} AS id,
      ${pick(["'GET'", "'GET'", "'GET'", "'POST'", "'PUT'", "'DELETE'"], `${hash('i * 5')} % 6`)} AS method,
      '/v1/resource' || ${text(`${hash('i')} % 60`)} || '/{id}' AS route,
      ${pick(['200', '200', '200', '200', '200', '200', '200', '201', '204', '304', '400', '401', '404', '404', '429', '500', '502', '503', '200', '200'], `${hash('i * 7')} % 20`)} AS status,
      exp((${hash('i * 13')} % 10000) / 10000.0 * 9) AS duration_ms,
      NULL AS bytes_in, 100 + ${d ? 'CAST(i % 5000 AS BIGINT)' : 'toInt64(i % 5000)'} AS bytes_out,
      CASE WHEN i % 5 = 0 THEN NULL ELSE 'client-' || ${text(`${hash('i * 3')} % 40`)} END AS consumer
    FROM ${numbers}`;
}


async function measure(server: Server, engine: string, total: number): Promise<BenchRow[]> {
  const { auth } = await ownerSession(server);
  await fetch(`${server.url}/api/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ hostname: SITE, kind: 'api' }) });
  const to = Math.floor(Date.now() / 1000);
  const rows: BenchRow[] = [];
  for (const days of [30, 365]) {
    const range = `from=${to - days * 86400}&to=${to}`;
    const base = `${server.url}/api/sites/${SITE}/api`;
    const cases: [string, string][] = [
      ['overview, UTC', `${base}/overview?${range}`],
      ['overview, Europe/Berlin', `${base}/overview?${range}&tz=Europe/Berlin`],
      ['overview, Asia/Kolkata, filtered (status:5xx)', `${base}/overview?${range}&tz=Asia/Kolkata&filter=status%3A5xx`],
      ['routes breakdown', `${base}/breakdown?dim=routes&${range}`],
      ['routes breakdown, filtered (route)', `${base}/breakdown?dim=routes&${range}&filter=route%3A%2Fv1%2Fresource7%2F%7Bid%7D`],
      ['consumers breakdown, filtered (method:POST)', `${base}/breakdown?dim=consumers&${range}&filter=method%3APOST`],
    ];
    for (const [name, url] of cases) {
      rows.push(budgetRow(`${engine}: API ${name}, ${days} days of ${fmt(total)} request rows`, await timedGets(url, auth, 12), REPORT_BUDGET_MS));
    }
  }
  return rows;
}

export async function apiReportsBench(pages: string): Promise<BenchRow[]> {
  const total = envNumber('BENCH_API_REQUESTS', 10_000_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-api-'));
  try {
    const events = await DuckDbEventStore.open(join(dataDir, 'events.duckdb'), { log });
    const store = await DuckDbApiRequests.open(events);
    const seeded = performance.now();
    await store.saveSelected(seedSelect('duckdb', total));
    const seedRow: BenchRow = { name: `DuckDB: seeded ${fmt(total)} API request rows over 365 days, rollups included`, value: `${((performance.now() - seeded) / 1000).toFixed(1)} s` };
    await store.close();
    await events.close();
    const server = await startServer(dataDir, pages);
    try {
      return [seedRow, ...(await measure(server, 'DuckDB', total))];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function clickHouseApiReportsBench(pages: string): Promise<BenchRow[]> {
  const total = envNumber('BENCH_API_REQUESTS', 10_000_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-api-ch-'));
  try {
    return await withClickHouse('bench_api', async (settings) => {
      const events = await ClickHouseEventStore.open(clickHouseHttpExecutor({ ...settings, requestTimeoutMs: 30 * 60_000 }), settings.database, log);
      const seeded = performance.now();
      await new ClickHouseApiRequests(events.executor, settings.database).saveSelected(seedSelect('clickhouse', total));
      await events.executor.command(`OPTIMIZE TABLE "${settings.database}".api_request_hours FINAL`);
      await events.executor.command(`OPTIMIZE TABLE "${settings.database}".api_request_days FINAL`);
      const seedRow: BenchRow = { name: `ClickHouse (chDB): seeded ${fmt(total)} API request rows over 365 days (rollups by their views, then merged)`, value: `${((performance.now() - seeded) / 1000).toFixed(1)} s` };
      await events.close();
      const server = await startServer(dataDir, pages, clickHouseEnv(settings));
      try {
        return [seedRow, ...(await measure(server, 'ClickHouse (chDB)', total))];
      } finally {
        await server.stop();
      }
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
