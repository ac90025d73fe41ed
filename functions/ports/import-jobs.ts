/**
 * Port: import jobs, their progress and the limits around them (DynamoDB in
 * AWS, the same code over dynalite locally). Everything of a job lives under
 * its site, so deleting the site removes its jobs.
 *
 * Concurrency rules the adapter guarantees:
 * - one queued or running job per site: `acquireActiveLock` is a conditional
 *   write, so of two simultaneous creates exactly one gets the lock;
 * - a chunk's completion and its counts are recorded in one conditional
 *   write, at most once per chunk, so redelivered or re-run chunks never count twice;
 * - status changes are conditional on the state they leave.
 */
/** A job's status; its transitions are the domain's (functions/domain/imports/job.ts). */
export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface ImportJobRecord {
  id: string;
  site: string;
  owner_uid: string;
  source: string;
  status: ImportStatus;
  /** Inclusive, YYYY-MM-DD. */
  range_start: string;
  range_end: string;
  chunks_total: number;
  chunks_done: number;
  rows_imported: number;
  rows_skipped: number;
  error: string | null;
  /** The configuration without password fields (user_id, source_hostname). */
  config: Record<string, string>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** 1 at creation, +1 per retry: chunk messages of an older attempt are dropped. */
  attempt: number;
  /** Indexes of the recorded chunks. */
  done_chunks: number[];
}

/** What the queue carries: one chunk of one job. The chunk's dates follow from the job's range. */
export interface ImportChunkMessage {
  site: string;
  job_id: string;
  chunk: number;
  attempt: number;
}

export interface ChunkCounts {
  imported: number;
  skipped: number;
}

export type FinalStatus = Extract<ImportStatus, 'succeeded' | 'failed' | 'cancelled'>;

export interface ImportJobs {
  /**
   * Reserves one of the owner's job slots of the rolling 24 hours before `at`
   * (across sites and statuses); false when `max` are taken. Reservations
   * outlive their job's site, so deleting sites does not reset the limit.
   */
  reserveDailySlot(ownerUid: string, jobId: string, at: Date, max: number): Promise<boolean>;
  /** Gives a reservation back (the create failed a later check). */
  releaseDailySlot(ownerUid: string, jobId: string, at: Date): Promise<void>;

  /**
   * Takes the site's single active-import lock for `jobId`; false when
   * another job holds it. A lock left by a job that ended, or by a create
   * that never stored its job, is taken over.
   */
  acquireActiveLock(site: string, jobId: string, at: Date): Promise<boolean>;
  releaseActiveLock(site: string, jobId: string): Promise<void>;
  /** Jobs holding a site's lock (queued or running), for resuming after a restart. */
  listActiveJobs(): Promise<{ site: string; id: string }[]>;

  /** Stores a new job with its sealed credentials. */
  createJob(job: ImportJobRecord, sealedCredentials: string): Promise<void>;
  getJob(site: string, id: string): Promise<ImportJobRecord | null>;
  /** At most `limit` jobs, newest first. */
  listJobs(site: string, limit: number): Promise<ImportJobRecord[]>;

  /** The sealed credentials, or null when deleted or expired. */
  getCredentials(site: string, id: string, at: Date): Promise<string | null>;
  /** Stores (or replaces) the sealed credentials; they expire 30 days after `at` at the latest. */
  putCredentials(site: string, id: string, sealed: string, at: Date): Promise<void>;

  /** queued → running for the current attempt; the job after the call, or null when it is not queued or running. */
  markRunning(site: string, id: string, attempt: number, at: Date): Promise<ImportJobRecord | null>;
  /**
   * Records a finished chunk and adds its counts, atomically and at most once
   * per chunk; null when the chunk was recorded already (or the job is gone).
   */
  recordChunk(site: string, id: string, chunk: number, counts: ChunkCounts): Promise<ImportJobRecord | null>;
  /**
   * Ends the job (`from` → `to`), sets `finished_at` and `error`, releases the
   * site lock; on success the credentials are deleted, otherwise they are kept
   * for a retry until `credentialsExpireAt`. Null when the job was not in a `from` state.
   */
  finish(
    site: string,
    id: string,
    change: { from: readonly ImportStatus[]; to: FinalStatus; at: Date; error: string | null; attempt?: number; credentialsExpireAt?: Date },
  ): Promise<ImportJobRecord | null>;
  /** failed | cancelled → queued with the next attempt; the caller holds the site lock. Null when not retryable. */
  requeue(site: string, id: string, at: Date): Promise<ImportJobRecord | null>;
}
