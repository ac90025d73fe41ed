/**
 * The import worker: consumes chunk messages from the import queue (the
 * in-process queue locally, SQS in AWS through sqs-import-worker.ts), streams
 * the chunk's export, maps rows, skips source ids the site already has,
 * writes the rest to the event store and records the chunk with its counts.
 *
 * Exactly-once counting without transactions: a chunk's counts are computed
 * from scratch on every run and recorded together with its completion in one
 * conditional write (at most once per chunk). Rows are idempotent: their id
 * is derived from the job and the source id, and the ledger tells rows this
 * job stored on an earlier, interrupted run (counted as imported again) from
 * rows of other jobs (skipped). So a crash anywhere — between chunks or in
 * the middle of one — resumes without double counting.
 *
 * Statuses: the first chunk moves the job to running, the last recorded chunk
 * to succeeded; a source failure (after retries) fails it with the error
 * text. A cancelled job's chunk in flight finishes and is recorded; later
 * messages of it are dropped. Messages of an older attempt (before a retry)
 * are dropped too.
 */
import type { EventRow, EventStore } from '#ports/event-store.ts';
import type { Clock } from '#ports/clock.ts';
import type { ChunkCounts, ImportChunkMessage, ImportJobRecord, ImportJobs } from '#ports/import-jobs.ts';
import type { ImportLedger } from '#ports/import-ledger.ts';
import { ImportSourceError, type ImportSourceClient } from '#ports/import-source.ts';
import type { BatchConsumer, Queue } from '#ports/queue.ts';
import { SecretBoxError, type SecretBox } from '#ports/secret-box.ts';
import { createRecordMapper, type MappedRecord } from '#domain/imports/export-row.ts';
import { ACTIVE_STATUSES, RETRY_CREDENTIALS_TTL_MS, isActive } from '#domain/imports/job.ts';
import { chunkAt, unfinishedChunks, type ImportChunk } from '#domain/imports/planner.ts';
import { dateRangeMs } from '#domain/imports/dates.ts';
import { SIMPLE_ANALYTICS } from '#domain/imports/source.ts';
import { log } from '#platform/log.ts';
import { registrationKey } from '#domain/registration.ts';

export interface ImportWorkerDeps {
  jobs: ImportJobs;
  secrets: SecretBox;
  source: ImportSourceClient;
  ledger: ImportLedger;
  events: EventStore;
  clock: Clock;
  /** Runs of a chunk whose export failed transiently (the fetcher retried each request already). Default 3. */
  chunkRuns?: number;
  /** Wait between those runs. Default 5 s. */
  chunkRetryDelayMs?: number;
  /** Fresh rows of a chunk gathered into one write. Default WRITE_ROWS. */
  writeRows?: number;
}

export type ChunkOutcome =
  | { outcome: 'recorded'; counts: ChunkCounts }
  /** Unknown job, job no longer active, or a message of an older attempt. */
  | { outcome: 'stale' }
  | { outcome: 'already_done' }
  | { outcome: 'job_failed'; error: string }
  /** Shutdown: the chunk stays unrecorded and runs again after resume. */
  | { outcome: 'aborted' };

export interface ImportWorker {
  /** Throws on event-store or registry failures, so the queue redelivers. */
  processChunk(message: ImportChunkMessage): Promise<ChunkOutcome>;
  consumer: BatchConsumer<ImportChunkMessage>;
  /** Re-queues the unfinished chunks of every queued or running job; the number of messages sent. */
  resume(queue: Queue<ImportChunkMessage>): Promise<number>;
  /** Stops the chunks in flight without recording them (shutdown). */
  abort(): void;
  /** Resolves when no chunk is in flight. */
  idle(): Promise<void>;
}

const DAY_MS = 86_400_000;
const NOTHING_STORED: ReadonlyMap<string, string> = new Map();
/**
 * Rows of a chunk gathered into one write: each write pays a fixed cost
 * (planning its statement, a commit) whatever its size, and the export's
 * parse batches are smaller.
 */
const WRITE_ROWS = 20_000;

export const CREDENTIALS_GONE = 'the import credentials are no longer available; retry with the API key';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

const logChunk = (fields: Record<string, unknown>) => log.info('import chunk', fields);

/** A chunk message from untrusted transport (SQS bodies, dead-letter files), or null. */
export function parseChunkMessage(value: unknown): ImportChunkMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  if (typeof m.site !== 'string' || typeof m.job_id !== 'string' || !Number.isSafeInteger(m.chunk) || !Number.isSafeInteger(m.attempt)) return null;
  return { site: m.site, job_id: m.job_id, chunk: m.chunk as number, attempt: m.attempt as number };
}

export function chunkMessages(job: ImportJobRecord): ImportChunkMessage[] {
  return unfinishedChunks(job.chunks_total, job.done_chunks).map((chunk) => ({ site: job.site, job_id: job.id, chunk, attempt: job.attempt }));
}

export function createImportWorker(deps: ImportWorkerDeps): ImportWorker {
  const { jobs, secrets, source, ledger, events, clock } = deps;
  const chunkRuns = Math.max(1, deps.chunkRuns ?? 3);
  const chunkRetryDelayMs = deps.chunkRetryDelayMs ?? 5_000;
  const writeRows = deps.writeRows ?? WRITE_ROWS;
  let shutdown = new AbortController();
  const inFlight = new Set<Promise<unknown>>();

  async function failJob(job: ImportJobRecord, error: string): Promise<void> {
    const now = clock.now();
    await jobs.finish(job.site, job.id, {
      from: ACTIVE_STATUSES,
      to: 'failed',
      at: now,
      error,
      attempt: job.attempt,
      credentialsExpireAt: new Date(now.getTime() + RETRY_CREDENTIALS_TTL_MS),
    });
  }

  async function succeedIfComplete(job: ImportJobRecord): Promise<void> {
    if (job.status !== 'running' || job.chunks_done < job.chunks_total) return;
    await jobs.finish(job.site, job.id, { from: ['running'], to: 'succeeded', at: clock.now(), error: null });
  }

  async function credentialsOf(job: ImportJobRecord): Promise<{ user_id: string; api_key: string } | null> {
    const sealed = await jobs.getCredentials(job.site, job.id, clock.now());
    if (!sealed) return null;
    try {
      const api_key = await secrets.open(sealed, { site: job.site, job_id: job.id });
      return { user_id: job.config.user_id ?? '', api_key };
    } catch (e) {
      if (e instanceof SecretBoxError) return null;
      throw e;
    }
  }

  /**
   * One run over the chunk's export. Fresh rows are gathered into writes of
   * about `writeRows`; a write overlaps the parsing of the next rows (one write
   * in flight); lookups never race a write of the same source ids, because a
   * chunk holds each source id once.
   */
  async function importChunk(job: ImportJobRecord, chunk: ImportChunk, credentials: { user_id: string; api_key: string }, signal: AbortSignal): Promise<ChunkCounts> {
    // The rows belong to the registration that started the job; written after a delete, they never reach another account's.
    const registration = registrationKey(job.owner_uid, job.site);
    const site = { site: job.site, registration };
    const ctx = { site: job.site, registration, jobId: job.id, type: chunk.type, sourceHostname: job.config.source_hostname ?? job.site };
    let columns: readonly string[] | null = null;
    let map: ((values: readonly string[]) => MappedRecord) | null = null;
    const seen = new Set<string>();
    let imported = 0;
    let skipped = 0;
    let writing: Promise<void> | null = null;
    let pending: EventRow[] = [];
    const write = async (rows: EventRow[]) => {
      if (writing) await writing;
      writing = rows.length > 0 ? events.saveEvents(rows) : null;
      // Handled when awaited; this keeps a failure from counting as unhandled meanwhile.
      writing?.catch(() => undefined);
    };
    // A first import of a period (the common case) finds nothing stored there: one query instead of one per batch.
    // The window has a day of slack each side for rows the source files under a neighbouring day.
    const { from, to } = dateRangeMs(chunk.start, chunk.end);
    const window = { from: from - DAY_MS, to: to + DAY_MS };
    const anyStored = await ledger.hasImported(site, window.from, window.to);
    try {
      for await (const batch of source.exportBatches({ credentials, hostname: ctx.sourceHostname, start: chunk.start, end: chunk.end, type: chunk.type, signal })) {
        if (batch.columns !== columns || !map) {
          columns = batch.columns;
          map = createRecordMapper(columns, ctx);
        }
        const rows: EventRow[] = [];
        let min = Infinity;
        let max = -Infinity;
        for (const values of batch.records) {
          const mapped = map(values);
          if (!mapped.ok) {
            skipped++;
            continue;
          }
          const sourceId = mapped.row.source_id as string;
          if (seen.has(sourceId)) {
            skipped++;
            continue;
          }
          seen.add(sourceId);
          rows.push(mapped.row);
          if (mapped.row.ts < min) min = mapped.row.ts;
          if (mapped.row.ts > max) max = mapped.row.ts;
        }
        if (rows.length === 0) continue;
        const lookup = anyStored || min < window.from || max > window.to;
        const stored = lookup ? await ledger.findImported(site, rows.map((r) => r.source_id as string), min, max) : NOTHING_STORED;
        for (const row of rows) {
          const holder = stored.get(row.source_id as string);
          if (holder === undefined) {
            pending.push(row);
            imported++;
          } else if (holder === row.id) imported++;
          else skipped++;
        }
        if (pending.length >= writeRows) {
          await write(pending);
          pending = [];
        }
      }
      await write(pending);
      if (writing) await writing;
    } finally {
      // Never leave a write running past the chunk, whatever ended it.
      if (writing) await (writing as Promise<void>).catch(() => undefined);
    }
    return { imported, skipped };
  }

  async function run(message: ImportChunkMessage): Promise<ChunkOutcome> {
    const signal = shutdown.signal;
    const job = await jobs.getJob(message.site, message.job_id);
    if (!job || job.attempt !== message.attempt || !isActive(job.status)) return { outcome: 'stale' };
    if (job.done_chunks.includes(message.chunk)) {
      await succeedIfComplete(job);
      return { outcome: 'already_done' };
    }
    const chunk = chunkAt(job.range_start, job.range_end, message.chunk);
    if (!chunk) return { outcome: 'stale' };
    const running = job.status === 'running' ? job : await jobs.markRunning(job.site, job.id, job.attempt, clock.now());
    if (!running) return { outcome: 'stale' };
    const credentials = await credentialsOf(running);
    if (!credentials) {
      await failJob(running, CREDENTIALS_GONE);
      return { outcome: 'job_failed', error: CREDENTIALS_GONE };
    }
    const started = performance.now();
    let counts: ChunkCounts;
    for (let attempt = 1; ; attempt++) {
      try {
        counts = await importChunk(running, chunk, credentials, signal);
        break;
      } catch (e) {
        if (signal.aborted) return { outcome: 'aborted' };
        if (!(e instanceof ImportSourceError)) throw e;
        if (!e.permanent && attempt < chunkRuns) {
          await sleep(chunkRetryDelayMs * attempt, signal);
          if (signal.aborted) return { outcome: 'aborted' };
          continue;
        }
        await failJob(running, e.message);
        logChunk({ site: job.site, job_id: job.id, chunk: chunk.index, outcome: 'job_failed', error: e.message });
        return { outcome: 'job_failed', error: e.message };
      }
    }
    const after = await jobs.recordChunk(job.site, job.id, chunk.index, counts);
    const ms = performance.now() - started;
    logChunk({
      site: job.site,
      job_id: job.id,
      chunk: chunk.index,
      type: chunk.type,
      start: chunk.start,
      end: chunk.end,
      outcome: after ? 'recorded' : 'already_done',
      ...counts,
      ms: Math.round(ms),
      rows_per_s: Math.round(((counts.imported + counts.skipped) / Math.max(ms, 1)) * 1000),
    });
    if (!after) return { outcome: 'already_done' };
    await succeedIfComplete(after);
    return { outcome: 'recorded', counts };
  }

  function track<T>(p: Promise<T>): Promise<T> {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  const processChunk = (message: ImportChunkMessage) => track(run(message));

  return {
    processChunk,
    consumer: async (messages) => {
      // The batch's chunks run side by side: one parses while another's rows are written.
      const results = await Promise.all(
        messages.map(async (message, i) => {
          try {
            // An aborted chunk (shutdown) is not reported: the in-process queue is going away, and
            // the next start resumes it from the registry.
            await processChunk(message);
            return null;
          } catch (e) {
            log.error('import chunk failed', { site: message.site, job_id: message.job_id, chunk: message.chunk, message: (e as Error)?.message });
            return i;
          }
        }),
      );
      return results.filter((i): i is number => i !== null);
    },
    async resume(queue) {
      let sent = 0;
      for (const { site, id } of await jobs.listActiveJobs()) {
        const job = await jobs.getJob(site, id);
        if (!job || !isActive(job.status)) continue;
        const messages = chunkMessages(job);
        if (messages.length === 0) {
          await succeedIfComplete(job);
          continue;
        }
        await queue.sendBatch(messages);
        sent += messages.length;
      }
      if (sent > 0) log.info('imports resumed', { source: SIMPLE_ANALYTICS.id, chunks: sent });
      return sent;
    },
    abort() {
      shutdown.abort(new Error('import worker stopping'));
      shutdown = new AbortController();
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
