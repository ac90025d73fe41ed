/**
 * The import job: its states and transitions (DESIGN.md §4: queued → running
 * → succeeded | failed | cancelled; cancel from queued or running; retry from
 * failed or cancelled back to queued), a new job's record, the API view,
 * and time-ordered job ids.
 */
import { randomBytes } from 'node:crypto';
import type { ImportJobRecord, ImportStatus } from '#ports/import-jobs.ts';
import type { ImportRequest } from './create-request.ts';
import { planChunks } from './planner.ts';
import { publicConfig, type ImportSource } from './source.ts';

export type { ImportStatus };
export type ImportTransition = 'start' | 'succeed' | 'fail' | 'cancel' | 'retry';

/** At most one job per site is in one of these. */
export const ACTIVE_STATUSES: readonly ImportStatus[] = ['queued', 'running'];
export const RETRYABLE_STATUSES: readonly ImportStatus[] = ['failed', 'cancelled'];

const TRANSITIONS = {
  start: { from: ['queued'], to: 'running' },
  succeed: { from: ['running'], to: 'succeeded' },
  fail: { from: ACTIVE_STATUSES, to: 'failed' },
  cancel: { from: ACTIVE_STATUSES, to: 'cancelled' },
  retry: { from: RETRYABLE_STATUSES, to: 'queued' },
} as const satisfies Readonly<Record<ImportTransition, { from: readonly ImportStatus[]; to: ImportStatus }>>;

/** The statuses a transition may leave and the one it leads to: the conditional writes of every status change take them from here. */
export const transition = <T extends ImportTransition>(name: T): (typeof TRANSITIONS)[T] => TRANSITIONS[name];

export const isActive = (status: ImportStatus): boolean => ACTIVE_STATUSES.includes(status);

/** New jobs per owner in the rolling previous 24 hours (spec part 8). */
export const MAX_IMPORTS_PER_DAY = 20;
export const DAILY_WINDOW_MS = 24 * 3_600_000;
/** Jobs listed per site. */
export const MAX_LISTED_IMPORTS = 50;
/** Credentials of a failed or cancelled job are kept this long for a retry, then deleted. */
export const RETRY_CREDENTIALS_TTL_MS = 7 * 24 * 3_600_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whether `id` has the form of a job id (a lowercase UUID); anything else names no job. */
export const isJobIdForm = (id: string): boolean => UUID.test(id);

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds first, so job ids
 * sort by creation and the newest jobs of a site are one reverse range read.
 */
export function uuidv7(now: Date, random: Buffer = randomBytes(10)): string {
  const ms = BigInt(now.getTime());
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(Number(ms >> 16n), 0, 4);
  bytes.writeUInt16BE(Number(ms & 0xffffn), 4);
  random.copy(bytes, 6, 0, 10);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function newImportJob(id: string, site: string, ownerUid: string, request: ImportRequest, now: Date): ImportJobRecord {
  return {
    id,
    site,
    owner_uid: ownerUid,
    source: request.source.id,
    status: 'queued',
    range_start: request.range_start,
    range_end: request.range_end,
    chunks_total: planChunks(request.range_start, request.range_end).length,
    chunks_done: 0,
    rows_imported: 0,
    rows_skipped: 0,
    error: null,
    config: publicConfig(request.source, { user_id: request.credentials.user_id, api_key: request.credentials.api_key, source_hostname: request.source_hostname }),
    created_at: now.toISOString(),
    started_at: null,
    finished_at: null,
    attempt: 1,
    done_chunks: [],
  };
}

/** The job as the API shows it (spec part 2 "Import job"): no owner, no credentials, no internals. */
export function jobView(job: ImportJobRecord, source: ImportSource | null) {
  return {
    id: job.id,
    site: job.site,
    source: job.source,
    source_label: source?.label ?? job.source,
    status: job.status,
    range_start: job.range_start,
    range_end: job.range_end,
    chunks_total: job.chunks_total,
    chunks_done: job.chunks_done,
    rows_imported: job.rows_imported,
    rows_skipped: job.rows_skipped,
    error: job.error,
    config: source ? publicConfig(source, job.config) : { ...job.config },
    created_at: job.created_at,
    finished_at: job.finished_at,
  };
}

/** Newest first; ids break ties (they are time-ordered too). */
export const compareJobsNewestFirst = (a: ImportJobRecord, b: ImportJobRecord): number =>
  b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);
