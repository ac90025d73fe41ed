/**
 * Dead letters left in DATA_DIR are written to the store: by the operator's
 * `npm run admin -- replay-dead-letters` on a stopped server, and by the
 * server itself on start. Each row is stored once.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { eventRow } from '../contract/event-store.contract.ts';
import { startTestService, type TestService } from '../support/local-node.ts';
import { log } from '#platform/log.ts';

const ROOT = join(import.meta.dirname, '..', '..');
let dataDir = '';
let restarted: TestService | null = null;
afterAll(async () => {
  await restarted?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const writeDeadLetters = (site: string, n: number) => {
  const rows = Array.from({ length: n }, () => eventRow({ site }));
  mkdirSync(join(dataDir, 'dead-letter'), { recursive: true });
  writeFileSync(join(dataDir, 'dead-letter', 'events.jsonl'), rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return rows;
};

async function storedIds(site: string): Promise<string[]> {
  const store = await DuckDbEventStore.open(join(dataDir, 'events.duckdb'), { log });
  try {
    return (await store.query<{ id: string }>('SELECT id FROM events WHERE site = $site', { site })).map((r) => r.id);
  } finally {
    await store.close();
  }
}

describe('dead letters of an earlier run', () => {
  it('are written once by the admin command, which says how many, and by the next start', { timeout: 90_000 }, async () => {
    const setup = await startTestService();
    dataDir = setup.dataDir;
    await setup.stop({ keepData: true });

    const byHand = writeDeadLetters('dead-admin.example', 20);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/tt.ts', 'admin', 'replay-dead-letters'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
    expect(stdout).toContain('replayed 20 event rows and 0 import chunks');
    expect((await storedIds('dead-admin.example')).sort()).toEqual(byHand.map((r) => r.id).sort());

    const onStart = writeDeadLetters('dead-start.example', 15);
    restarted = await startTestService({ DATA_DIR: dataDir });
    const events = restarted.node.runtime.duckdb!;
    const count = async () => (await events.query<{ n: bigint }>('SELECT count(*) AS n FROM events WHERE site = $site', { site: 'dead-start.example' }))[0]?.n;
    await expect.poll(count, { timeout: 10_000 }).toBe(15n);
    await restarted.stop({ keepData: true });
    restarted = null;
    expect((await storedIds('dead-start.example')).sort()).toEqual(onStart.map((r) => r.id).sort());
    expect(await storedIds('dead-admin.example')).toHaveLength(20);
  });

  it("are written when an earlier version wrote them without a registration: to the hostname's current one, or to none", { timeout: 90_000 }, async () => {
    const setup = await startTestService();
    const dir = setup.dataDir;
    const owner = await setup.token('legacy-owner');
    const site = await setup.site(owner, { prefix: 'legacy' });
    await setup.stop({ keepData: true });
    // Dead letters as the previous version wrote them: rows with no registration field.
    const legacy = (hostname: string, n: number) =>
      Array.from({ length: n }, (_, i) => {
        const { registration: _dropped, ...row } = eventRow({ site: hostname, path: `/legacy/${i}`, visitor: `v${i}` });
        return row;
      });
    mkdirSync(join(dir, 'dead-letter'), { recursive: true });
    writeFileSync(join(dir, 'dead-letter', 'events.jsonl'), [...legacy(site, 6), ...legacy('nobody-holds.example', 3)].map((r) => `${JSON.stringify(r)}\n`).join(''));

    const again = await startTestService({ DATA_DIR: dir });
    try {
      const token = await again.token('legacy-owner');
      const pageviews = async () => (await again.req('GET', `/api/sites/${site}/overview?from=${Math.floor(Date.now() / 1000) - 3600}`, { token })).json?.totals?.pageviews;
      await expect.poll(pageviews, { timeout: 15_000 }).toBe(6);
      const rows = await again.node.runtime.duckdb!.query<{ site: string; registration: string }>(
        "SELECT site, registration FROM events WHERE site IN ($a, 'nobody-holds.example') ORDER BY site",
        { a: site },
      );
      expect(rows.filter((r) => r.site === 'nobody-holds.example').map((r) => r.registration)).toEqual(['', '', '']);
      expect(existsSync(join(dir, 'dead-letter', 'events.jsonl'))).toBe(false);
    } finally {
      await again.stop();
    }
  });
});
