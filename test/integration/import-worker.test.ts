/**
 * The import worker over real dynalite and DuckDB with an in-memory export:
 * a crash inside a chunk (rows written, chunk not recorded) and redeliveries
 * never count twice; stale, cancelled and credential-less jobs; overlap
 * de-duplication; transient and permanent source failures; the rollups of a
 * job's days built before it succeeds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '#platform/config.ts';
import { startLocalStore, type LocalStore } from '#local/adapters.ts';
import { DynamoImportJobs } from '#adapters/dynamodb/import-jobs.ts';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbImportLedger } from '#adapters/duckdb/duckdb-import-ledger.ts';
import { LocalSecretBox } from '#adapters/local-secret-box/local-secret-box.ts';
import { newImportJob, uuidv7 } from '#domain/imports/job.ts';
import { planChunks } from '#domain/imports/planner.ts';
import { SIMPLE_ANALYTICS } from '#domain/imports/source.ts';
import { registrationKey } from '#domain/registration.ts';
import { EXPORT_FIELDS } from '#domain/imports/export-row.ts';
import { ImportSourceError, type ExportBatch, type ExportRequest, type ImportSourceClient } from '#ports/import-source.ts';
import type { ImportJobRecord, ImportJobs } from '#ports/import-jobs.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ReportStore } from '#ports/report-store.ts';
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import { DAY_MS } from '#domain/rows/days.ts';
import type { ImportLedger } from '#ports/import-ledger.ts';
import { systemClock } from '#ports/clock.ts';
import { CREDENTIALS_GONE, createImportWorker, type ImportWorker } from '#workers/import-worker.ts';
import { chunkMessages } from '#domain/imports/chunk-message.ts';
import { createSqsImportWorkerHandler } from '#workers/sqs-import-worker.ts';
import { generateDataset, type SaDataset } from '../support/fake-simpleanalytics.ts';
import { sqsEvent } from '../support/lambda-events.ts';
import { log } from '#platform/log.ts';

let dir: string;
let store: LocalStore;
let jobs: DynamoImportJobs;
let events: DuckDbEventStore;
let secrets: LocalSecretBox;
let n = 0;

const START = '2025-01-01';
const END = '2025-02-28';
const data = generateDataset(START, END, 3_000, 500, 21);
const TOTAL = data.pageviews.length + data.events.length;

/** An export served from memory, in batches of 400, with an optional fault per request. */
function memorySource(dataset: SaDataset, fault?: (req: ExportRequest, call: number) => Error | null): ImportSourceClient & { calls: ExportRequest[] } {
  const calls: ExportRequest[] = [];
  return {
    calls,
    checkCredentials: async () => ({ ok: true }),
    async *exportBatches(req: ExportRequest): AsyncIterable<ExportBatch> {
      calls.push(req);
      const error = fault?.(req, calls.length);
      if (error) throw error;
      const columns = EXPORT_FIELDS[req.type];
      const from = Date.parse(`${req.start}T00:00:00Z`) / 1000;
      const to = Date.parse(`${req.end}T00:00:00Z`) / 1000 + 86_400;
      const rows = dataset[req.type].filter((r) => r.added_unix >= from && r.added_unix < to);
      for (let i = 0; i < rows.length; i += 400) {
        yield { columns, records: rows.slice(i, i + 400).map((r) => columns.map((c) => String((r as unknown as Record<string, unknown>)[c] ?? ''))) };
      }
    },
  };
}

async function newJob(range: [string, string] = [START, END]): Promise<ImportJobRecord> {
  const site = `worker-${++n}.example`;
  const now = new Date();
  const job = newImportJob(uuidv7(now), site, 'owner', {
    source: SIMPLE_ANALYTICS,
    range_start: range[0],
    range_end: range[1],
    credentials: { user_id: 'u', api_key: 'sa_api_key_worker_test' },
    source_hostname: 'old.example',
  }, now);
  await jobs.createJob(job, await secrets.seal('k', { site, job_id: job.id }));
  await jobs.acquireActiveLock(site, job.id, now);
  return job;
}

function worker(source: ImportSourceClient, over: Partial<{ jobs: ImportJobs; events: EventStore; writeRows: number; ledger: ImportLedger; rollups: Pick<ReportStore, 'warmRollups'> }> = {}): ImportWorker {
  return createImportWorker({
    jobs: over.jobs ?? jobs, secrets, source, ledger: over.ledger ?? new DuckDbImportLedger(events), events: over.events ?? events, clock: systemClock, chunkRetryDelayMs: 1, writeRows: over.writeRows,
    rollups: over.rollups,
  });
}

/** The DuckDB ledger, keeping the spans its source-id look-ups searched. */
function countingLedger(): ImportLedger & { lookups: [number, number][] } {
  const ledger = new DuckDbImportLedger(events);
  const lookups: [number, number][] = [];
  return {
    lookups,
    hasImported: (...args) => ledger.hasImported(...args),
    findImported: (site, kind, ids, from, to) => {
      lookups.push([from, to]);
      return ledger.findImported(site, kind, ids, from, to);
    },
  };
}

async function stored(site: string) {
  const [r] = await events.query<{ rows: bigint; distinct: bigint }>('SELECT count(*) AS rows, count(DISTINCT source_id) AS distinct FROM events WHERE site = $site', { site });
  return { rows: Number(r?.rows), distinct: Number(r?.distinct) };
}

async function runAll(w: ImportWorker, job: ImportJobRecord) {
  for (const m of chunkMessages(job)) await w.processChunk(m);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tt-import-worker-'));
  const config = loadConfig({ DATA_DIR: dir });
  store = await startLocalStore(config);
  jobs = new DynamoImportJobs(store.client, config.tableName);
  events = await DuckDbEventStore.open(join(dir, 'events.duckdb'), { log });
  secrets = LocalSecretBox.open(dir);
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterAll(async () => {
  vi.restoreAllMocks();
  await events.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('import worker', () => {
  it('imports every chunk and succeeds, deleting the credentials', async () => {
    const job = await newJob();
    await runAll(worker(memorySource(data)), job);
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded', chunks_done: 4, rows_imported: TOTAL, rows_skipped: 0 });
    expect(await jobs.getCredentials(job.site, job.id, new Date())).toBeNull();
    expect(await stored(job.site)).toEqual({ rows: TOTAL, distinct: TOTAL });
  });

  it('writes every row under the registration that started the job (its owner and site), whoever holds the site later', async () => {
    const job = await newJob();
    await runAll(worker(memorySource(data)), job);
    const registrations = await events.query<{ registration: string }>('SELECT DISTINCT registration FROM events WHERE site = $site', { site: job.site });
    expect(registrations).toEqual([{ registration: registrationKey('owner', job.site) }]);
  });

  it("builds the rollups of the job's days and as many before them under its registration before it marks the job succeeded, and succeeds when that build fails", async () => {
    const job = await newJob();
    const reports = new DuckDbReportStore({ query: (sql, params) => events.query(sql, params) }, events);
    const statusAtWarm: string[] = [];
    const rollups = { warmRollups: async (...args: Parameters<ReportStore['warmRollups']>) => {
      statusAtWarm.push((await jobs.getJob(job.site, job.id))!.status);
      return reports.warmRollups(...args);
    } };
    await runAll(worker(memorySource(data), { rollups }), job);
    const [first, last] = [Date.parse(`${START}T00:00:00Z`) / DAY_MS, Date.parse(`${END}T00:00:00Z`) / DAY_MS];
    expect(statusAtWarm).toEqual(['running']);
    // The job's days, and as many before them (the overview's previous period).
    const span = last - first + 1;
    expect(await events.builtRollupDays(job.site, registrationKey('owner', job.site), first - span, last)).toHaveLength(2 * span);
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded' });
    const failing = await newJob();
    await runAll(worker(memorySource(data), { rollups: { warmRollups: () => Promise.reject(new Error('disk full')) } }), failing);
    expect(await jobs.getJob(failing.site, failing.id)).toMatchObject({ status: 'succeeded', rows_imported: TOTAL });
  });

  it('survives a crash after writing a chunk and before recording it: the redelivery counts each row once', async () => {
    const job = await newJob();
    let crashes = 1;
    const crashing: ImportJobs = Object.create(jobs);
    crashing.recordChunk = async (...args) => {
      if (crashes-- > 0) throw new Error('process died');
      return jobs.recordChunk(...args);
    };
    const w = worker(memorySource(data), { jobs: crashing });
    const [m0, ...rest] = chunkMessages(job);
    await expect(w.processChunk(m0!)).rejects.toThrow('process died');
    // The rows of chunk 0 are stored, the chunk is not recorded.
    expect((await stored(job.site)).rows).toBeGreaterThan(0);
    expect((await jobs.getJob(job.site, job.id))?.chunks_done).toBe(0);
    expect(await w.processChunk(m0!)).toMatchObject({ outcome: 'recorded' });
    // Delivered twice more (an at-least-once queue): nothing changes.
    expect(await w.processChunk(m0!)).toEqual({ outcome: 'already_done' });
    for (const m of rest) await w.processChunk(m);
    expect(await w.processChunk(rest[0]!)).toEqual({ outcome: 'stale' });
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded', rows_imported: TOTAL, rows_skipped: 0 });
    expect(await stored(job.site)).toEqual({ rows: TOTAL, distinct: TOTAL });
  });

  it("gathers a chunk's parse batches into writes of about writeRows, and a crash between them loses and doubles nothing", async () => {
    const job = await newJob();
    const writes: number[] = [];
    let failAt = 3;
    const counting: EventStore = {
      saveEvents: async (rows) => {
        writes.push(rows.length);
        if (--failAt === 0) throw new Error('disk full');
        await events.saveEvents(rows);
      },
      close: async () => {},
    };
    const w = worker(memorySource(data), { events: counting, writeRows: 700 });
    const results = [];
    for (const m of chunkMessages(job)) results.push(await w.processChunk(m).catch((e: Error) => e.message));
    expect(results).toContain('disk full');
    for (const m of chunkMessages((await jobs.getJob(job.site, job.id))!)) await w.processChunk(m);
    // Parse batches are 400 rows: two make a write, the rest of a chunk the last one.
    expect(writes.filter((n) => n > 0).every((n) => n <= 800)).toBe(true);
    expect(writes.filter((n) => n === 800).length).toBeGreaterThan(1);
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded', rows_imported: TOTAL, rows_skipped: 0 });
    expect(await stored(job.site)).toEqual({ rows: TOTAL, distinct: TOTAL });
  });

  it('skips rows another job of the site imported, and duplicates within an export', async () => {
    const first = await newJob(['2025-01-01', '2025-01-31']);
    await runAll(worker(memorySource(data)), first);
    const job = newImportJob(uuidv7(new Date()), first.site, 'owner', {
      source: SIMPLE_ANALYTICS, range_start: START, range_end: END, credentials: { user_id: 'u', api_key: 'sa_api_key_worker_test' }, source_hostname: 'old.example',
    }, new Date());
    await jobs.createJob(job, await secrets.seal('k', { site: job.site, job_id: job.id }));
    const doubled: SaDataset = { pageviews: [...data.pageviews, data.pageviews[0]!], events: data.events };
    await runAll(worker(memorySource(doubled)), job);
    const january = (rows: { added_unix: number }[]) => rows.filter((r) => r.added_unix < Date.parse('2025-02-01T00:00:00Z') / 1000).length;
    const inJanuary = january(data.pageviews) + january(data.events);
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded', rows_imported: TOTAL - inJanuary, rows_skipped: inJanuary + 1 });
    expect(await stored(job.site)).toEqual({ rows: TOTAL, distinct: TOTAL });
  });

  it("looks source ids up only for a batch whose span holds imported rows of its kind, not for a month beside another's rows", async () => {
    const job = await newJob();
    const ledger = countingLedger();
    const source = memorySource(data);
    let batches = 0;
    const w = worker({ ...source, async *exportBatches(req) { for await (const b of source.exportBatches(req)) { batches++; yield b; } } }, { ledger });
    // Each month's pageviews and events side by side, as the queue hands them out; every chunk's
    // window reaches a day into its neighbours, which hold imported rows by then.
    const messages = chunkMessages(job);
    for (let i = 0; i < messages.length; i += 2) await Promise.all(messages.slice(i, i + 2).map((m) => w.processChunk(m)));
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded', rows_imported: TOTAL, rows_skipped: 0 });
    expect(ledger.lookups).toEqual([]);
    // A second job over the same months finds every row, batch by batch.
    const again = newImportJob(uuidv7(new Date()), job.site, 'owner', {
      source: SIMPLE_ANALYTICS, range_start: START, range_end: END, credentials: { user_id: 'u', api_key: 'sa_api_key_worker_test' }, source_hostname: 'old.example',
    }, new Date());
    await jobs.createJob(again, await secrets.seal('k', { site: job.site, job_id: again.id }));
    batches = 0;
    await runAll(w, again);
    expect(await jobs.getJob(job.site, again.id)).toMatchObject({ status: 'succeeded', rows_imported: 0, rows_skipped: TOTAL });
    expect(ledger.lookups.length).toBe(batches);
  });

  it('drops messages of an older attempt, of cancelled jobs, and of unknown jobs', async () => {
    const job = await newJob();
    const source = memorySource(data);
    const w = worker(source);
    const [m0, m1] = chunkMessages(job);
    expect(await w.processChunk({ ...m0!, attempt: 2 })).toEqual({ outcome: 'stale' });
    expect(await w.processChunk({ ...m0!, job_id: 'nope' })).toEqual({ outcome: 'stale' });
    await w.processChunk(m0!);
    await jobs.finish(job.site, job.id, { from: ['queued', 'running'], to: 'cancelled', at: new Date(), error: null });
    expect(await w.processChunk(m1!)).toEqual({ outcome: 'stale' });
    expect(source.calls).toHaveLength(1);
    // Retry: the next attempt runs the unfinished chunks only.
    await jobs.acquireActiveLock(job.site, job.id, new Date());
    const again = (await jobs.requeue(job.site, job.id, new Date())) as ImportJobRecord;
    expect(chunkMessages(again).map((m) => [m.chunk, m.attempt])).toEqual([[1, 2], [2, 2], [3, 2]]);
    await runAll(w, again);
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded', rows_imported: TOTAL });
  });

  it('re-runs a chunk after a transient failure and fails the job on a permanent one', async () => {
    const job = await newJob();
    const flaky = memorySource(data, (_, call) => (call === 1 ? new ImportSourceError('SimpleAnalytics returned 503: later', false) : null));
    await runAll(worker(flaky), job);
    expect(await jobs.getJob(job.site, job.id)).toMatchObject({ status: 'succeeded', rows_imported: TOTAL });

    const denied = await newJob();
    const w = worker(memorySource(data, () => new ImportSourceError('SimpleAnalytics returned 401: revoked', true)));
    expect(await w.processChunk(chunkMessages(denied)[0]!)).toEqual({ outcome: 'job_failed', error: 'SimpleAnalytics returned 401: revoked' });
    const failed = await jobs.getJob(denied.site, denied.id);
    expect(failed).toMatchObject({ status: 'failed', error: 'SimpleAnalytics returned 401: revoked' });
    expect(failed?.finished_at).toBeTruthy();
    // Kept for a retry.
    expect(await jobs.getCredentials(denied.site, denied.id, new Date())).not.toBeNull();
  });

  it('fails a job whose credentials are gone', async () => {
    const job = await newJob();
    await jobs.putCredentials(job.site, job.id, 'local1.not.a.secret', new Date());
    expect(await worker(memorySource(data)).processChunk(chunkMessages(job)[0]!)).toEqual({ outcome: 'job_failed', error: CREDENTIALS_GONE });
  });

  it('resumes every active job by queueing its unfinished chunks', async () => {
    const job = await newJob();
    const w = worker(memorySource(data));
    await w.processChunk(chunkMessages(job)[0]!);
    const sent: unknown[] = [];
    await w.resume({ send: async (m) => void sent.push(m), sendBatch: async (ms) => void sent.push(...ms) });
    expect(sent).toEqual(expect.arrayContaining([1, 2, 3].map((chunk) => ({ site: job.site, job_id: job.id, chunk, attempt: 1 }))));
    expect(sent).not.toContainEqual({ site: job.site, job_id: job.id, chunk: 0, attempt: 1 });
    expect(planChunks(job.range_start, job.range_end)).toHaveLength(4);
  });
});

describe('SQS import worker handler', () => {
  it('reports failed chunks for redelivery and drops malformed bodies', async () => {
    const processChunk = vi.fn(async (m: { chunk: number }) => {
      if (m.chunk === 1) throw new Error('store down');
      return m.chunk === 2 ? ({ outcome: 'aborted' } as const) : ({ outcome: 'recorded', counts: { imported: 1, skipped: 0 } } as const);
    });
    const handler = createSqsImportWorkerHandler({ processChunk });
    const msg = (chunk: number) => JSON.stringify({ site: 's.example', job_id: 'j', chunk, attempt: 1 });
    const r = await handler(
      sqsEvent(
        { messageId: 'a', body: msg(0) },
        { messageId: 'b', body: msg(1) },
        { messageId: 'c', body: 'not json' },
        { messageId: 'd', body: JSON.stringify({ site: 1 }) },
        { messageId: 'e', body: msg(2) },
      ),
    );
    expect(r).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }, { itemIdentifier: 'e' }] });
    expect(processChunk).toHaveBeenCalledTimes(3);
  });
});
