/**
 * DynamoImportJobs over a real dynalite: the site lock under concurrency, the
 * rolling daily limit, chunk progress recorded once, status changes, and the
 * site delete cascade.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#platform/config.ts';
import { startLocalStore, type LocalStore } from '#local/adapters.ts';
import { DynamoImportJobs } from '#adapters/dynamodb/import-jobs.ts';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { newImportJob, uuidv7 } from '#domain/imports/job.ts';
import { SIMPLE_ANALYTICS } from '#domain/imports/source.ts';
import { newSiteRecord, unverifiedHoldCutoff } from '#domain/site.ts';
import type { ImportJobRecord } from '#ports/import-jobs.ts';

let dir: string;
let store: LocalStore;
let jobs: DynamoImportJobs;
let registry: DynamoRegistry;
let n = 0;

const site = () => `imports-${process.pid}-${++n}.example`;
const at = (iso: string) => new Date(iso);

function job(hostname: string, now = new Date(), over: Partial<ImportJobRecord> = {}): ImportJobRecord {
  const record = newImportJob(uuidv7(now), hostname, 'owner-1', {
    source: SIMPLE_ANALYTICS,
    range_start: '2025-01-15',
    range_end: '2025-03-10',
    credentials: { user_id: 'sa_user', api_key: 'sa_api_key_job_store_secret' },
    source_hostname: 'old.example',
  }, now);
  return { ...record, ...over };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tt-import-jobs-'));
  const config = loadConfig({ DATA_DIR: dir });
  store = await startLocalStore(config);
  jobs = new DynamoImportJobs(store.client, config.tableName);
  registry = new DynamoRegistry(store.client, config.tableName);
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('active lock', () => {
  it('gives the lock to exactly one of many simultaneous takers', async () => {
    const h = site();
    const ids = Array.from({ length: 8 }, () => uuidv7(new Date()));
    const results = await Promise.all(ids.map((id) => jobs.acquireActiveLock(h, id, new Date())));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = ids[results.indexOf(true)] as string;
    expect(await jobs.listActiveJobs()).toContainEqual({ site: h, id: winner });
    await jobs.releaseActiveLock(h, 'someone-else');
    expect(await jobs.acquireActiveLock(h, 'late', new Date())).toBe(false);
    await jobs.releaseActiveLock(h, winner);
    expect(await jobs.acquireActiveLock(h, 'late', new Date())).toBe(true);
  });

  it('takes over a lock whose job ended, or whose create never stored a job', async () => {
    const h = site();
    const ended = job(h);
    await jobs.createJob(ended, 'sealed');
    expect(await jobs.acquireActiveLock(h, ended.id, new Date())).toBe(true);
    await jobs.finish(h, ended.id, { from: ['queued'], to: 'cancelled', at: new Date(), error: null });
    // finish released it; put it back as a crash between the two writes would leave it.
    await jobs.acquireActiveLock(h, ended.id, new Date());
    await jobs.finish(h, ended.id, { from: ['cancelled', 'queued'], to: 'failed', at: new Date(), error: 'x' }).catch(() => null);
    expect(await jobs.acquireActiveLock(h, 'next', new Date())).toBe(true);

    const h2 = site();
    expect(await jobs.acquireActiveLock(h2, 'ghost', at('2026-01-01T00:00:00Z'))).toBe(true);
    expect(await jobs.acquireActiveLock(h2, 'next', at('2026-01-01T00:01:00Z'))).toBe(false);
    expect(await jobs.acquireActiveLock(h2, 'next', at('2026-01-01T00:06:00Z'))).toBe(true);
  });
});

describe('daily slots', () => {
  it('allows max slots in the rolling previous 24 hours, across concurrent reservations', async () => {
    const owner = `owner-${++n}`;
    const t0 = Date.parse('2026-02-01T00:00:00Z');
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => jobs.reserveDailySlot(owner, `j${i}`, new Date(t0 + i), 4)));
    expect(results).toEqual([true, true, true, true, false, false]);
    // A failed create gives its slot back.
    await jobs.releaseDailySlot(owner, 'j3', new Date(t0 + 3));
    expect(await jobs.reserveDailySlot(owner, 'j6', new Date(t0 + 10), 4)).toBe(true);
    // 24 hours after the first slot it no longer counts; one millisecond before, it still does.
    expect(await jobs.reserveDailySlot(owner, 'j7', new Date(t0 + 86_400_000 - 1), 4)).toBe(false);
    expect(await jobs.reserveDailySlot(owner, 'j8', new Date(t0 + 86_400_000), 4)).toBe(true);
  });
});

describe('jobs', () => {
  it('lists newest first with a limit, and hides nothing but credentials', async () => {
    const h = site();
    const made: ImportJobRecord[] = [];
    for (let i = 0; i < 4; i++) {
      const j = job(h, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
      await jobs.createJob(j, `sealed-${i}`);
      made.push(j);
    }
    const listed = await jobs.listJobs(h, 3);
    expect(listed.map((j) => j.id)).toEqual([made[3]!.id, made[2]!.id, made[1]!.id]);
    expect(listed[0]).toEqual(made[3]);
    expect(JSON.stringify(listed)).not.toContain('sealed-');
    expect(await jobs.getCredentials(h, made[0]!.id, at('2026-01-02T00:00:00Z'))).toBe('sealed-0');
    // Kept 30 days at most, even for a job still running.
    expect(await jobs.getCredentials(h, made[1]!.id, at('2026-02-01T00:00:02Z'))).toBeNull();
  });

  it('records each chunk once with its counts, whatever is redelivered', async () => {
    const h = site();
    const j = job(h);
    await jobs.createJob(j, 'sealed');
    expect(await jobs.markRunning(h, j.id, 2, new Date())).toBeNull();
    expect((await jobs.markRunning(h, j.id, 1, new Date()))?.status).toBe('running');
    const results = await Promise.all([0, 0, 0, 3].map((c) => jobs.recordChunk(h, j.id, c, { imported: 10, skipped: 2 })));
    expect(results.filter(Boolean)).toHaveLength(2);
    const after = await jobs.getJob(h, j.id);
    expect(after).toMatchObject({ chunks_done: 2, rows_imported: 20, rows_skipped: 4, done_chunks: [0, 3] });
    expect(await jobs.recordChunk(h, 'no-such-job', 0, { imported: 1, skipped: 0 })).toBeNull();
  });

  it('ends a job once; success deletes the credentials, failure keeps them until they expire', async () => {
    const h = site();
    const ok = job(h);
    await jobs.createJob(ok, 'sealed-ok');
    await jobs.acquireActiveLock(h, ok.id, new Date());
    await jobs.markRunning(h, ok.id, 1, new Date());
    const done = await jobs.finish(h, ok.id, { from: ['running'], to: 'succeeded', at: at('2026-02-01T00:00:00Z'), error: null });
    expect(done).toMatchObject({ status: 'succeeded', finished_at: '2026-02-01T00:00:00.000Z', error: null });
    expect(await jobs.finish(h, ok.id, { from: ['queued', 'running'], to: 'cancelled', at: new Date(), error: null })).toBeNull();
    expect(await jobs.getCredentials(h, ok.id, new Date())).toBeNull();
    expect(await jobs.listActiveJobs()).not.toContainEqual({ site: h, id: ok.id });

    const bad = job(h);
    await jobs.createJob(bad, 'sealed-bad');
    const failedAt = new Date();
    const failed = await jobs.finish(h, bad.id, { from: ['queued', 'running'], to: 'failed', at: failedAt, error: 'SimpleAnalytics returned 401: no', credentialsExpireAt: new Date(failedAt.getTime() + 60_000) });
    expect(failed?.error).toBe('SimpleAnalytics returned 401: no');
    expect(await jobs.getCredentials(h, bad.id, failedAt)).toBe('sealed-bad');
    expect(await jobs.getCredentials(h, bad.id, new Date(failedAt.getTime() + 120_000))).toBeNull();
  });

  it('requeues a failed job with the next attempt, clearing error and finished_at', async () => {
    const h = site();
    const j = job(h);
    await jobs.createJob(j, 'sealed');
    expect(await jobs.requeue(h, j.id, new Date())).toBeNull();
    await jobs.finish(h, j.id, { from: ['queued'], to: 'failed', at: new Date(), error: 'boom' });
    const again = await jobs.requeue(h, j.id, new Date());
    expect(again).toMatchObject({ status: 'queued', attempt: 2, error: null, finished_at: null });
  });

  it('goes with its site: deleting the site removes jobs, credentials and the lock', async () => {
    const h = site();
    const now = new Date();
    await registry.createSite(newSiteRecord(h, 'web', 'owner-1', now), 50, unverifiedHoldCutoff(now));
    const j = job(h);
    await jobs.createJob(j, 'sealed');
    await jobs.acquireActiveLock(h, j.id, now);
    expect(await registry.deleteSite(h, 'owner-1')).toBe(true);
    expect(await jobs.listJobs(h, 50)).toEqual([]);
    expect(await jobs.getCredentials(h, j.id, now)).toBeNull();
    expect(await jobs.listActiveJobs()).not.toContainEqual({ site: h, id: j.id });
  });

  it('goes with a lapsed registration another account takes over, and the new site stays whole', async () => {
    const h = site();
    const then = new Date(Date.now() - 8 * 86_400_000);
    await registry.createSite(newSiteRecord(h, 'web', 'squatter', then), 50, unverifiedHoldCutoff(then));
    const j = job(h, then);
    await jobs.createJob(j, 'sealed');
    await jobs.acquireActiveLock(h, j.id, then);
    const now = new Date();
    const taken = await registry.createSite(newSiteRecord(h, 'web', 'owner-2', now), 50, unverifiedHoldCutoff(now));
    expect(taken.outcome).toBe('created');
    expect(await registry.getSite(h)).toMatchObject({ owner_uid: 'owner-2', verified_at: null, created_at: now.toISOString() });
    expect(await jobs.listJobs(h, 50)).toEqual([]);
    expect(await jobs.getCredentials(h, j.id, now)).toBeNull();
    expect(await jobs.listActiveJobs()).not.toContainEqual({ site: h, id: j.id });
    expect(await registry.countSites('squatter')).toBe(0);
  });
});
