/** The import queue's messages: one chunk of one attempt of a job. */
import type { ImportChunkMessage, ImportJobRecord } from '#ports/import-jobs.ts';
import { unfinishedChunks } from './planner.ts';

/** A chunk message from untrusted transport (SQS bodies, dead-letter files), or null. */
export function parseChunkMessage(value: unknown): ImportChunkMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  if (typeof m.site !== 'string' || typeof m.job_id !== 'string' || !Number.isSafeInteger(m.chunk) || !Number.isSafeInteger(m.attempt)) return null;
  return { site: m.site, job_id: m.job_id, chunk: m.chunk as number, attempt: m.attempt as number };
}

/** The messages of a job's chunks not yet recorded, for its current attempt. */
export function chunkMessages(job: ImportJobRecord): ImportChunkMessage[] {
  return unfinishedChunks(job.chunks_total, job.done_chunks).map((chunk) => ({ site: job.site, job_id: job.id, chunk, attempt: job.attempt }));
}
