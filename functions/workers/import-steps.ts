/**
 * The import worker's steps for one chunk message, each returning what the
 * next needs or the chunk's outcome: load job → open credentials → stream
 * chunk → record chunk. runChunk (import-worker.ts) runs them in order.
 */
import { DAY_MS } from '#domain/rows/days.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { Clock } from '#ports/clock.ts';
import type { ChunkCounts, ImportChunkMessage, ImportJobRecord, ImportJobs } from '#ports/import-jobs.ts';
import type { ImportLedger } from '#ports/import-ledger.ts';
import { ImportSourceError, type ImportSourceClient } from '#ports/import-source.ts';
import { SecretBoxError, type SecretBox } from '#ports/secret-box.ts';
import { createRecordMapper, importedKind, type MappedRecord } from '#domain/imports/export-row.ts';
import { RETRY_CREDENTIALS_TTL_MS, isActive, transition } from '#domain/imports/job.ts';
import { chunkAt, type ImportChunk } from '#domain/imports/planner.ts';
import { dateRangeMs } from '#domain/imports/dates.ts';
import { registrationKey } from '#domain/registration.ts';
import { log } from '#platform/log.ts';

/** The ports the import worker reads and writes. */
export interface ImportPorts {
  jobs: ImportJobs;
  secrets: SecretBox;
  source: ImportSourceClient;
  ledger: ImportLedger;
  events: EventStore;
  clock: Clock;
  /** Builds the daily rollups of the job's days before it succeeds, so its first reports read them (issue 43); none where the store keeps none. */
  rollups?: Pick<ReportStore, 'warmRollups'>;
}

/** The import worker's settings (defaults in import-worker.ts). */
export interface ImportSettings {
  /** Runs of a chunk whose export failed transiently (the fetcher retried each request already). */
  chunkRuns: number;
  /** Wait between those runs (times the run number). */
  chunkRetryDelayMs: number;
  /** Fresh rows of a chunk gathered into one write. */
  writeRows: number;
}

/** What the steps use: the ports and the settings resolved. */
export type StepDeps = ImportPorts & ImportSettings;

export type ChunkOutcome =
  | { outcome: 'recorded'; counts: ChunkCounts }
  /** Unknown job, job no longer active, or a message of an older attempt. */
  | { outcome: 'stale' }
  | { outcome: 'already_done' }
  | { outcome: 'job_failed'; error: string }
  /** Shutdown: the chunk stays unrecorded and runs again after resume. */
  | { outcome: 'aborted' };

type Credentials = { user_id: string; api_key: string };

const NOTHING_STORED: ReadonlyMap<string, string> = new Map();

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

/** Whether a step returned the chunk's outcome rather than what the next step needs. */
export const isOutcome = (value: object): value is ChunkOutcome => 'outcome' in value;

/** Fails the job with `error`, keeping its credentials a while for a retry. */
async function failJob(deps: StepDeps, job: ImportJobRecord, error: string): Promise<void> {
  const now = deps.clock.now();
  await deps.jobs.finish(job.site, job.id, {
    ...transition('fail'),
    at: now,
    error,
    attempt: job.attempt,
    credentialsExpireAt: new Date(now.getTime() + RETRY_CREDENTIALS_TTL_MS),
  });
}

/** Moves a running job whose every chunk is recorded to succeeded. */
export async function succeedIfComplete(deps: Pick<StepDeps, 'jobs' | 'clock' | 'rollups'>, job: ImportJobRecord): Promise<void> {
  if (job.status !== 'running' || job.chunks_done < job.chunks_total) return;
  await warmImportedDays(deps, job);
  await deps.jobs.finish(job.site, job.id, { ...transition('succeed'), at: deps.clock.now(), error: null });
}

/**
 * The rollups of the job's days, built before it is marked succeeded: an owner opens the reports
 * when the import says it is done. The overview of those days compares them with as many days
 * before, which a first read would otherwise build (empty or not): they are built too. A failed
 * build costs the first reports time, not the import.
 */
async function warmImportedDays(deps: Pick<StepDeps, 'rollups'>, job: ImportJobRecord): Promise<void> {
  if (!deps.rollups) return;
  const range = dateRangeMs(job.range_start, job.range_end);
  const [from, to] = [2 * range.from - range.to, range.to];
  const started = performance.now();
  try {
    const days = await deps.rollups.warmRollups({ site: job.site, registration: registrationKey(job.owner_uid, job.site) }, from, to);
    log.info('import rollups built', { site: job.site, job_id: job.id, days, ms: Math.round(performance.now() - started) });
  } catch (e) {
    log.warn('import rollups not built: the first reports build them', { site: job.site, job_id: job.id, message: (e as Error).message });
  }
}

/** Step 1: the message's job, moved to running, and its chunk; or why the message is stale or done. */
export async function loadJob(deps: StepDeps, message: ImportChunkMessage): Promise<{ job: ImportJobRecord; chunk: ImportChunk } | ChunkOutcome> {
  const job = await deps.jobs.getJob(message.site, message.job_id);
  if (!job || job.attempt !== message.attempt || !isActive(job.status)) return { outcome: 'stale' };
  if (job.done_chunks.includes(message.chunk)) {
    await succeedIfComplete(deps, job);
    return { outcome: 'already_done' };
  }
  const chunk = chunkAt(job.range_start, job.range_end, message.chunk);
  if (!chunk) return { outcome: 'stale' };
  const running = job.status === 'running' ? job : await deps.jobs.markRunning(job.site, job.id, job.attempt, deps.clock.now());
  return running ? { job: running, chunk } : { outcome: 'stale' };
}

/** Step 2: the job's API credentials, unsealed; a job whose credentials are gone fails. */
export async function openCredentials(deps: StepDeps, job: ImportJobRecord): Promise<Credentials | ChunkOutcome> {
  const sealed = await deps.jobs.getCredentials(job.site, job.id, deps.clock.now());
  if (sealed) {
    try {
      return { user_id: job.config.user_id ?? '', api_key: await deps.secrets.open(sealed, { site: job.site, job_id: job.id }) };
    } catch (e) {
      if (!(e instanceof SecretBoxError)) throw e;
    }
  }
  await failJob(deps, job, CREDENTIALS_GONE);
  return { outcome: 'job_failed', error: CREDENTIALS_GONE };
}

/** Rows of one parsed batch that map and whose source id the chunk has not seen, with their time span. */
function mappedRows(records: readonly (readonly string[])[], map: (values: readonly string[]) => MappedRecord, seen: Set<string>) {
  const rows: EventRow[] = [];
  let skipped = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const values of records) {
    const mapped = map(values);
    const sourceId = mapped.ok ? (mapped.row.source_id as string) : '';
    if (!mapped.ok || seen.has(sourceId)) {
      skipped++;
      continue;
    }
    seen.add(sourceId);
    rows.push(mapped.row);
    if (mapped.row.ts < min) min = mapped.row.ts;
    if (mapped.row.ts > max) max = mapped.row.ts;
  }
  return { rows, skipped, min, max };
}

/** Writes of a chunk's rows, one in flight while the next rows are parsed. */
class ChunkWriter {
  private writing: Promise<void> | null = null;

  constructor(private readonly events: EventStore) {}

  async write(rows: EventRow[]): Promise<void> {
    if (this.writing) await this.writing;
    this.writing = rows.length > 0 ? this.events.saveEvents(rows) : null;
    // Handled when awaited; this keeps a failure from counting as unhandled meanwhile.
    this.writing?.catch(() => undefined);
  }

  async done(): Promise<void> {
    if (this.writing) await this.writing;
  }

  /** Never leaves a write running past the chunk, whatever ended it. */
  async settled(): Promise<void> {
    if (this.writing) await this.writing.catch(() => undefined);
  }
}

/**
 * Step 3, one run over the chunk's export: fresh rows gathered into writes of
 * about `writeRows`, source ids another job stored skipped, rows this job
 * stored on an interrupted run counted again. Lookups never race a write of
 * the same source ids: a chunk holds each source id once.
 */
export async function streamChunk(deps: StepDeps, job: ImportJobRecord, chunk: ImportChunk, credentials: Credentials, signal: AbortSignal): Promise<ChunkCounts> {
  // The rows belong to the registration that started the job; written after a delete, they never reach another account's.
  const registration = registrationKey(job.owner_uid, job.site);
  const site = { site: job.site, registration };
  const ctx = { site: job.site, registration, jobId: job.id, type: chunk.type, sourceHostname: job.config.source_hostname ?? job.site };
  let columns: readonly string[] | null = null;
  let map: ((values: readonly string[]) => MappedRecord) | null = null;
  const seen = new Set<string>();
  const counts = { imported: 0, skipped: 0 };
  const writer = new ChunkWriter(deps.events);
  let pending: EventRow[] = [];
  // A first import of a period (the common case) finds nothing stored there: one query instead of one per batch.
  // The window has a day of slack each side for rows the source files under a neighbouring day.
  const { from, to } = dateRangeMs(chunk.start, chunk.end);
  const window = { from: from - DAY_MS, to: to + DAY_MS };
  const kind = importedKind(chunk.type);
  const anyStored = await deps.ledger.hasImported(site, kind, window.from, window.to);
  try {
    for await (const batch of deps.source.exportBatches({ credentials, hostname: ctx.sourceHostname, start: chunk.start, end: chunk.end, type: chunk.type, signal })) {
      if (batch.columns !== columns || !map) {
        columns = batch.columns;
        map = createRecordMapper(columns, ctx);
      }
      const { rows, skipped, min, max } = mappedRows(batch.records, map, seen);
      counts.skipped += skipped;
      if (rows.length === 0) continue;
      // A stored copy of a source row has its ts: only a batch whose own span holds imported rows looks up
      // (a neighbouring chunk's rows in the window's slack days make its edge batches look up, not every batch).
      const lookup = (anyStored || min < window.from || max > window.to) && (await deps.ledger.hasImported(site, kind, min, max));
      const stored = lookup ? await deps.ledger.findImported(site, kind, rows.map((r) => r.source_id as string), min, max) : NOTHING_STORED;
      for (const row of rows) {
        const holder = stored.get(row.source_id as string);
        if (holder === undefined) pending.push(row);
        if (holder === undefined || holder === row.id) counts.imported++;
        else counts.skipped++;
      }
      if (pending.length >= deps.writeRows) {
        await writer.write(pending);
        pending = [];
      }
    }
    await writer.write(pending);
    await writer.done();
  } finally {
    await writer.settled();
  }
  return counts;
}

/** Step 3 with its retries: transient export failures run the chunk again; a lasting one fails the job. */
export async function streamWithRetries(deps: StepDeps, job: ImportJobRecord, chunk: ImportChunk, credentials: Credentials, signal: AbortSignal): Promise<ChunkCounts | ChunkOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await streamChunk(deps, job, chunk, credentials, signal);
    } catch (e) {
      if (signal.aborted) return { outcome: 'aborted' };
      if (!(e instanceof ImportSourceError)) throw e;
      if (!e.permanent && attempt < deps.chunkRuns) {
        await sleep(deps.chunkRetryDelayMs * attempt, signal);
        if (signal.aborted) return { outcome: 'aborted' };
        continue;
      }
      await failJob(deps, job, e.message);
      logChunk({ site: job.site, job_id: job.id, chunk: chunk.index, outcome: 'job_failed', error: e.message });
      return { outcome: 'job_failed', error: e.message };
    }
  }
}

/** Step 4: the chunk recorded with its counts (at most once), and the job succeeded when it was the last. */
export async function recordChunk(deps: StepDeps, job: ImportJobRecord, chunk: ImportChunk, counts: ChunkCounts, startedMs: number): Promise<ChunkOutcome> {
  const after = await deps.jobs.recordChunk(job.site, job.id, chunk.index, counts);
  const ms = performance.now() - startedMs;
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
  await succeedIfComplete(deps, after);
  return { outcome: 'recorded', counts };
}
