/**
 * The local node with CLICKHOUSE_URL: beacons are stored in ClickHouse and
 * every report reads them from there, no DuckDB file is made. The server is
 * ClickHouse's engine (chDB) behind a stand-in of its HTTP interface.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { row } from '../contract/report-store.contract.ts';
import { startChdbHttpServer, type ChdbHttpServer } from '../support/chdb-http-server.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { log } from '#platform/log.ts';

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.7000.0 Safari/537.36';
const CREDENTIALS = { user: 'tinytrack', password: 'node-test-secret' };

let clickhouse: ChdbHttpServer;
let svc: TestService;

beforeAll(async () => {
  clickhouse = await startChdbHttpServer(CREDENTIALS);
  svc = await startTestService({ CLICKHOUSE_URL: clickhouse.url, CLICKHOUSE_USER: CREDENTIALS.user, CLICKHOUSE_PASSWORD: CREDENTIALS.password, CLICKHOUSE_DATABASE: 'node_test' });
});
afterAll(async () => {
  await svc.stop();
  await clickhouse.close();
});

describe('the local node on ClickHouse', () => {
  it('stores beacons in ClickHouse and reports them from there, with no DuckDB file', async () => {
    const owner = await svc.token('clickhouse-owner');
    const site = await svc.site(owner);
    for (const path of ['/', '/pricing', '/pricing']) {
      expect((await svc.req('POST', '/events', { raw: JSON.stringify({ hostname: site, path, ua: UA }), headers: { 'user-agent': UA } })).text).toBe('ok');
    }
    await svc.node.runtime.eventQueue.drain();
    const ch = clickHouseHttpExecutor({ url: clickhouse.url, ...CREDENTIALS, database: 'node_test' });
    const stored = await ch.query<{ n: number }>('SELECT count() AS n FROM node_test.events WHERE site = {site:String}', { site });
    await ch.close();
    expect(Number(stored[0]?.n)).toBe(3);
    // A range around now: the default ends at the current second, which may be before the beacons' milliseconds.
    const nowS = Math.floor(Date.now() / 1000);
    const range = `from=${nowS - 3600}&to=${nowS + 3600}`;
    const pages = await svc.req('GET', `/api/sites/${site}/breakdown?dim=pages&${range}`, { token: owner });
    expect(pages.json.rows.map((r: { name: string; value: number }) => [r.name, r.value])).toEqual([
      ['/pricing', 2],
      ['/', 1],
    ]);
    const overview = await svc.req('GET', `/api/sites/${site}/overview?${range}`, { token: owner });
    expect(overview.json.totals.pageviews).toBe(3);
    expect([svc.node.runtime.duckdb, existsSync(join(svc.dataDir, 'events.duckdb'))]).toEqual([null, false]);
  });

  it('stores a batch of 30,000 rows the size of the local queue\'s through the HTTP interface: the redelivery look-up fits a server\'s URI limit', async () => {
    const executor = clickHouseHttpExecutor({ url: clickhouse.url, ...CREDENTIALS, database: 'node_test' });
    const store = await ClickHouseEventStore.open(executor, 'node_big_batch', log);
    try {
      const t = Date.now() - 3_600_000;
      const rows = Array.from({ length: 30_000 }, (_, i) => row('big-batch.example', (t + i * 10) / 1000, { id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }));
      await store.saveEvents(rows);
      // Redelivered: the look-up finds every row, and nothing is stored twice.
      await store.saveEvents(rows);
      const [stored] = await store.executor.query<{ n: number }>(`SELECT count() AS n FROM ${store.table}`);
      expect(Number(stored?.n)).toBe(30_000);
    } finally {
      await store.close();
    }
  }, 120_000);
});
