/**
 * Durable receipt: the real `npm start` process group (npm, its shell and the
 * server) is killed with SIGKILL while beacons arrive at full speed; after a
 * restart on the same DATA_DIR every beacon that was answered 200 is stored,
 * and none twice.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { startServerProcess, startTestService, type ServerProcess } from '../support/local-node.ts';
import { assertDataDirFree } from '#local/startup.ts';

/** Until no process holds DATA_DIR (at most 10 s). */
async function dataDirReleased(dataDir: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; ; ) {
    try {
      return await assertDataDirFree(dataDir);
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

let child: ServerProcess | null = null;
let dataDir = '';

afterAll(() => {
  child?.killGroup();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('kill -9 under load', () => {
  it('stores every beacon answered 200 exactly once after the whole process group is killed and restarted', { timeout: 120_000 }, async () => {
    // Register and verify a site with the in-process node, then hand DATA_DIR to a real server process.
    const setup = await startTestService();
    dataDir = setup.dataDir;
    const owner = await setup.token('kill-owner');
    const site = await setup.site(owner, { prefix: 'kill' });
    await setup.stop({ keepData: true });

    const started = await startServerProcess({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' }, { viaNpm: true });
    child = started;
    const acknowledged: string[] = [];
    let killed = false;
    const worker = async () => {
      while (!killed) {
        const id = randomUUID();
        try {
          const r = await fetch(`${started.url}/events`, {
            method: 'POST',
            body: JSON.stringify({ hostname: site, path: `/p/${acknowledged.length % 50}`, ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36', timezone: 'Europe/Berlin', id }),
          });
          if (r.status === 200 && (await r.text()) === 'ok') acknowledged.push(id);
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    // Kill while beacons are still arriving: after a few thousand, well inside the writer's batch wait.
    while (acknowledged.length < 2_000) await new Promise((r) => setTimeout(r, 5));
    started.killGroup();
    killed = true;
    await Promise.all(workers);
    await started.exited;
    child = null;
    // The group's other processes (the server under its launcher) are reaped on their own time: until then they hold DATA_DIR's lock.
    await dataDirReleased(dataDir);

    // The restart writes what the journal held; a clean stop drains it.
    const restarted = await startTestService({ DATA_DIR: dataDir });
    await restarted.stop({ keepData: true });

    const db = await DuckDBInstance.create(join(dataDir, 'events.duckdb'));
    const conn = await db.connect();
    const reader = await conn.runAndReadAll('SELECT id, count(*)::INTEGER AS n FROM events WHERE site = $site GROUP BY id', { site });
    const counts = new Map(reader.getRowObjectsJS().map((r) => [r.id as string, r.n as number]));
    conn.closeSync();
    db.closeSync();
    expect(acknowledged.length).toBeGreaterThanOrEqual(2_000);
    expect(acknowledged.filter((id) => counts.get(id) !== 1)).toEqual([]);
  });
});
