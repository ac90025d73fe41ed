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
import type { ImportChunkMessage } from '#ports/import-jobs.ts';
import type { BatchConsumer, Queue } from '#ports/queue.ts';
import { isActive } from '#domain/imports/job.ts';
import { chunkMessages } from '#domain/imports/chunk-message.ts';
import { SIMPLE_ANALYTICS } from '#domain/imports/source.ts';
import { log } from '#platform/log.ts';
import { isOutcome, loadJob, openCredentials, recordChunk, streamWithRetries, succeedIfComplete, type ChunkOutcome, type ImportPorts, type ImportSettings, type StepDeps } from './import-steps.ts';

export { CREDENTIALS_GONE, type ChunkOutcome } from './import-steps.ts';

/** The ports, and any settings to change: chunkRuns 3, chunkRetryDelayMs 5 s, writeRows WRITE_ROWS by default. */
export type ImportWorkerDeps = ImportPorts & Partial<ImportSettings>;

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

/**
 * Rows of a chunk gathered into one write: each write pays a fixed cost
 * (planning its statement, a commit) whatever its size, and the export's
 * parse batches are smaller.
 */
const WRITE_ROWS = 20_000;

/** The steps of one chunk message in order; the first outcome a step returns is the chunk's. */
export async function runChunk(deps: StepDeps, message: ImportChunkMessage, signal: AbortSignal): Promise<ChunkOutcome> {
  const loaded = await loadJob(deps, message);
  if (isOutcome(loaded)) return loaded;
  const { job, chunk } = loaded;
  const credentials = await openCredentials(deps, job);
  if (isOutcome(credentials)) return credentials;
  const started = performance.now();
  const counts = await streamWithRetries(deps, job, chunk, credentials, signal);
  if (isOutcome(counts)) return counts;
  return recordChunk(deps, job, chunk, counts, started);
}

/** The batch's chunks side by side (one parses while another's rows are written); the indexes of those that threw. */
async function consumeChunks(messages: readonly ImportChunkMessage[], processChunk: (m: ImportChunkMessage) => Promise<ChunkOutcome>): Promise<number[]> {
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
}

/** Re-queues the unfinished chunks of every active job; the number of messages sent. */
async function resumeJobs(deps: StepDeps, queue: Queue<ImportChunkMessage>): Promise<number> {
  let sent = 0;
  for (const { site, id } of await deps.jobs.listActiveJobs()) {
    const job = await deps.jobs.getJob(site, id);
    if (!job || !isActive(job.status)) continue;
    const messages = chunkMessages(job);
    if (messages.length === 0) {
      await succeedIfComplete(deps, job);
      continue;
    }
    await queue.sendBatch(messages);
    sent += messages.length;
  }
  if (sent > 0) log.info('imports resumed', { source: SIMPLE_ANALYTICS.id, chunks: sent });
  return sent;
}

export function createImportWorker(options: ImportWorkerDeps): ImportWorker {
  const deps: StepDeps = {
    ...options,
    chunkRuns: Math.max(1, options.chunkRuns ?? 3),
    chunkRetryDelayMs: options.chunkRetryDelayMs ?? 5_000,
    writeRows: options.writeRows ?? WRITE_ROWS,
  };
  let shutdown = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const processChunk = (message: ImportChunkMessage) => {
    const run = runChunk(deps, message, shutdown.signal);
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run)).catch(() => undefined);
    return run;
  };
  return {
    processChunk,
    consumer: (messages) => consumeChunks(messages, processChunk),
    resume: (queue) => resumeJobs(deps, queue),
    abort() {
      shutdown.abort(new Error('import worker stopping'));
      shutdown = new AbortController();
    },
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
