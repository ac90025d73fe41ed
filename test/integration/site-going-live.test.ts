/**
 * A site going live: its owner adds the script, and its first beacons arrive
 * many at a time while the automatic check of its home page runs (or right
 * after the operator verified it from another process). Every beacon answered
 * 200 is stored once the site is verified; real HTTP, real handlers, DuckDB.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRESH_TABLE } from '#adapters/duckdb/duckdb-event-store.ts';
import { VERIFY_WAIT_MS } from '#domain/ingest/steps/verify.ts';
import { PLAIN_PAGE, startTestService, type TestService } from '../support/local-node.ts';

let svc: TestService;
let owner: string;

beforeAll(async () => {
  svc = await startTestService();
  owner = await svc.token('going-live-owner');
});
afterAll(() => svc.stop());

const SENDERS = 16;
const PAGEVIEWS_EACH = 40;

/** SENDERS concurrent senders, `each` pageviews each one after the other (a new id and visitor each); resolves with the ids answered 200 ok. */
async function burst(site: string, each = PAGEVIEWS_EACH): Promise<string[]> {
  const answered: string[] = [];
  const sender = async (n: number) => {
    for (let i = 0; i < each; i++) {
      const id = randomUUID();
      const r = await fetch(`${svc.url}/events`, {
        method: 'POST',
        body: JSON.stringify({ hostname: site, path: `/p/${i % 6}`, ua: `Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.${n}.${i} Safari/537.36`, timezone: 'Europe/Berlin', id }),
      });
      if (r.status === 200 && (await r.text()) === 'ok') answered.push(id);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, (_, n) => sender(n)));
  return answered;
}

async function storedIds(site: string): Promise<string[]> {
  await svc.node.runtime.eventQueue.drain();
  const rows = await svc.node.runtime.duckdb!.query<{ id: string }>(`SELECT id FROM ${FRESH_TABLE} WHERE site = $site`, { site });
  return rows.map((r) => r.id);
}

/** Delays every page check of the node by `ms` (the real check runs after it); `ended()` tells when the last one returned. */
function slowChecks(ms: number): { ended(): number; restore(): void } {
  const checker = svc.node.services.pageChecker;
  const original = checker.checkPage.bind(checker);
  let ended = 0;
  checker.checkPage = async (request) => {
    await new Promise((r) => setTimeout(r, ms));
    const page = await original(request);
    ended = Date.now();
    return page;
  };
  return {
    ended: () => ended,
    restore: () => {
      checker.checkPage = original;
    },
  };
}

describe('a site going live', () => {
  it('stores every beacon of 16 concurrent senders that arrive while its first check runs, in 10 of 10 runs', { timeout: 120_000 }, async () => {
    for (let run = 0; run < 10; run++) {
      const site = await svc.site(owner, { prefix: `live${run}`, verify: false });
      svc.setPage(site, svc.scriptPage);
      const answered = await burst(site);
      expect(answered.length, `run ${run}`).toBe(SENDERS * PAGEVIEWS_EACH);
      expect((await storedIds(site)).sort(), `run ${run}`).toEqual(answered.sort());
    }
  });

  it('answers beacons whose check outlasts the wait before it ends, and stores them when it passes', { timeout: 30_000 }, async () => {
    const site = await svc.site(owner, { prefix: 'slowcheck', verify: false });
    svc.setPage(site, svc.scriptPage);
    const checks = slowChecks(VERIFY_WAIT_MS + 2_000);
    try {
      const answered = await burst(site, 1);
      const answeredAt = Date.now();
      expect(answered.length).toBe(SENDERS);
      expect(checks.ended()).toBe(0);
      const stored = await svc.until(() => storedIds(site), (ids) => ids.length >= answered.length);
      expect(checks.ended()).toBeGreaterThan(answeredAt);
      expect(stored.sort()).toEqual(answered.sort());
    } finally {
      checks.restore();
    }
  });

  it('drops the held beacons as unverified when the check fails', { timeout: 30_000 }, async () => {
    const site = await svc.site(owner, { prefix: 'slowfail', verify: false });
    svc.setPage(site, PLAIN_PAGE);
    const checks = slowChecks(VERIFY_WAIT_MS + 500);
    try {
      expect(await burst(site, 1)).toHaveLength(SENDERS);
      expect(checks.ended()).toBe(0);
      await svc.until(async () => checks.ended(), (ended) => ended > 0);
      checks.restore();
      const setup = await svc.until(
        async () => (await svc.req('GET', `/api/sites/${site}/setup`, { token: owner })).json,
        (json) => json.recent_drops?.some((d: { reason: string }) => d.reason === 'unverified'),
      );
      expect(setup.recent_drops).toEqual([expect.objectContaining({ reason: 'unverified', count: SENDERS })]);
      expect(await storedIds(site)).toEqual([]);
    } finally {
      checks.restore();
    }
  });

  it('stores every beacon sent right after `admin verify-site` in another process, though its page has no script', { timeout: 60_000 }, async () => {
    const site = await svc.site(owner, { prefix: 'operator', verify: false });
    svc.setPage(site, PLAIN_PAGE);
    // The server has looked and found no script: the site is cached pending and its next check is 15 s away.
    expect(await burst(site)).toHaveLength(SENDERS * PAGEVIEWS_EACH);
    expect(await storedIds(site)).toEqual([]);
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bin/tt.ts', 'admin', 'verify-site', site], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, DATA_DIR: svc.dataDir },
    });
    const answered = await burst(site);
    expect((await storedIds(site)).sort()).toEqual(answered.sort());
  });
});
