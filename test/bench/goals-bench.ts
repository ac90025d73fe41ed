/**
 * Goals, funnels and event metadata (issue 37) over the reports bench's 10
 * million events (report-bench.ts: 50 sites over 90 days, the largest site
 * first), on DuckDB and on ClickHouse (chDB behind its HTTP stand-in), each
 * through `npm start` in its own process and asked over HTTP as the
 * dashboard asks: goal stats (five goals: exact and wildcard paths, events),
 * a 4-step funnel, an event's metadata keys and a key's values, for 30 and
 * 365 days (the seed's 90 days are all in the second), UTC and a local
 * timezone, with and without a filter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';
import { log } from '#platform/log.ts';
import { clickHouseEnv, withClickHouse } from './clickhouse-bench.ts';
import { seedClickHouse, seedReports } from './report-bench.ts';
import { ownerSession, startServer, type Server } from './service.ts';
import { budgetRow, fmt, timedGets, type BenchRow } from './stats.ts';

const SITE = 'site-0.example';
const GOAL_BUDGET_MS = 150;
const METADATA_BUDGET_MS = 50;
/**
 * The seed's paths are /page/0 … /page/499 (pageviews, appends on /page/1…) and its events event_0, event_10
 * and event_20 with {plan, seats} metadata. A visitor of the seed keeps one path, so funnels stop at step 1:
 * their cost (every hit of every step read and walked per visitor-day) is what is measured. The first step
 * matches a fifth of the pageviews, the next two as many: a broad funnel, the costly kind.
 */
const GOALS = [
  { type: 'page', match: '/page/2' },
  { type: 'page', match: '/page/1*' },
  { type: 'page', match: '*/9' },
  { type: 'event', match: 'event_10' },
  { type: 'event', match: 'event_20' },
];
const FUNNEL = { name: 'bench', steps: [{ type: 'page', match: '/page/1*' }, { type: 'page', match: '/page/2*' }, { type: 'page', match: '/page/3*' }, { type: 'event', match: 'event_10' }] };

async function measure(server: Server, engine: string, total: number): Promise<BenchRow[]> {
  const { auth, register } = await ownerSession(server);
  await register(SITE);
  const base = `${server.url}/api/sites/${SITE}`;
  const post = (path: string, body: unknown) => fetch(`${base}/${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  for (const goal of GOALS) await post('goals', goal);
  const funnel = (await (await post('funnels', FUNNEL)).json()) as { id: string };
  const to = Math.floor(Date.now() / 1000);
  const rows: BenchRow[] = [];
  for (const days of [30, 365]) {
    const range = `from=${to - days * 86400}&to=${to}`;
    const of = `${days} days of the largest site (${fmt(total)} events)`;
    const cases: [string, string, number][] = [
      ['goal stats (5 goals), UTC', `${base}/goals/stats?${range}`, GOAL_BUDGET_MS],
      ['goal stats (5 goals), Europe/Berlin, filtered (country DE)', `${base}/goals/stats?${range}&tz=Europe/Berlin&filter=country%3ADE`, GOAL_BUDGET_MS],
      ['4-step funnel, UTC', `${base}/funnels/${funnel.id}/stats?${range}`, GOAL_BUDGET_MS],
      ['4-step funnel, Asia/Kolkata, filtered (country DE)', `${base}/funnels/${funnel.id}/stats?${range}&tz=Asia/Kolkata&filter=country%3ADE`, GOAL_BUDGET_MS],
      ['event metadata keys', `${base}/events/event_10/metadata?${range}`, METADATA_BUDGET_MS],
      ['event metadata top values', `${base}/events/event_10/metadata?${range}&key=plan`, METADATA_BUDGET_MS],
      ['event metadata top values, filtered (country DE)', `${base}/events/event_10/metadata?${range}&key=seats&filter=country%3ADE`, METADATA_BUDGET_MS],
    ];
    for (const [name, url, budget] of cases) rows.push(budgetRow(`${engine}: ${name}, ${of}`, await timedGets(url, auth, 12), budget));
  }
  return rows;
}

export async function goalsBench(pages: string, total: number): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-goals-'));
  try {
    await seedReports(dataDir, total);
    const server = await startServer(dataDir, pages);
    try {
      return await measure(server, 'DuckDB', total);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function clickHouseGoalsBench(pages: string, total: number): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tt-bench-goals-ch-'));
  try {
    return await withClickHouse('bench_goals', async (settings) => {
      const store = await ClickHouseEventStore.open(clickHouseHttpExecutor({ ...settings, requestTimeoutMs: 30 * 60_000 }), settings.database, log);
      await seedClickHouse(store, total);
      await store.listStoredIn(0, Date.now() + 86_400_000);
      await store.executor.command(`OPTIMIZE TABLE ${store.table} FINAL`);
      await store.close();
      const server = await startServer(dataDir, pages, clickHouseEnv(settings));
      try {
        return await measure(server, 'ClickHouse (chDB)', total);
      } finally {
        await server.stop();
      }
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
