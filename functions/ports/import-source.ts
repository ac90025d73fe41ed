/**
 * Port: the third-party export an import reads (the Simple Analytics Export
 * API). The adapter does HTTP, retries and CSV parsing; callers see the
 * credential test's verdict and batches of CSV records.
 */
import type { ImportCredentials } from '#domain/imports/create-request.ts';
import type { ChunkType } from '#domain/imports/planner.ts';

export type CredentialCheck = { ok: true } | { ok: false; error: string };

export interface ExportRequest {
  credentials: ImportCredentials;
  /** The website's hostname at the source. */
  hostname: string;
  /** Inclusive, YYYY-MM-DD (UTC). */
  start: string;
  end: string;
  type: ChunkType;
  signal?: AbortSignal;
}

/** Records of one CSV export, a batch at a time; every batch carries the header row. */
export interface ExportBatch {
  columns: readonly string[];
  records: string[][];
}

export interface ImportSourceClient {
  /**
   * Step 7 of the create checks: one request for a recent page-view export,
   * abandoned after the configured timeout (20 s by default). The error texts
   * are the spec's: `<label> returned <status>: <body…>` or `<label> error: <cause>`.
   */
  checkCredentials(credentials: ImportCredentials, hostname: string, now: Date): Promise<CredentialCheck>;
  /** Streams one export. Throws ImportSourceError. */
  exportBatches(request: ExportRequest): AsyncIterable<ExportBatch>;
}

/**
 * A failed export. `permanent` errors (401/403 and other 4xx, malformed CSV)
 * fail the job at once; the others were retried already and may be retried
 * by re-running the chunk. `message` is the text a failed job shows.
 */
export class ImportSourceError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'ImportSourceError';
  }
}
