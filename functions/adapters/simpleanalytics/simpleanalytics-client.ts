/**
 * The Simple Analytics Export API ("Export data points"):
 * `GET {base}/api/export/datapoints?version=5&format=csv&hostname=…&start=…&end=…
 * &timezone=UTC&robots=false&type=pageviews|events&fields=…` with the
 * `Api-Key` and `User-Id` headers. Responses are parsed as they stream in by
 * papaparse (quoted fields, embedded commas and newlines), in batches.
 *
 * Failures: 401/403 and other 4xx fail at once; 429, 5xx and network errors
 * are retried with exponential backoff, honouring Retry-After; redirects are
 * not followed (they would carry the API key to another host). Credentials
 * never reach a log line or an error text.
 */
import { CsvFormatError, CsvParseWorkers, csvBatchesInline } from './csv-batches.ts';
import { addDays, todayUtc } from '#domain/imports/dates.ts';
import { EXPORT_FIELDS } from '#domain/imports/export-row.ts';
import { SIMPLE_ANALYTICS, sourceFormatError, sourceNetworkError, sourceStatusError } from '#domain/imports/source.ts';
import type { ImportCredentials } from '#domain/imports/create-request.ts';
import type { ChunkType } from '#domain/imports/planner.ts';
import { backoffDelay, type BackoffPolicy } from '#ports/queue.ts';
import { ImportSourceError, type CredentialCheck, type ExportBatch, type ExportRequest, type ImportSourceClient } from '#ports/import-source.ts';

export const CREDENTIAL_TEST_TIMEOUT_MS = 20_000;

export interface SimpleAnalyticsClientOptions {
  /** SIMPLEANALYTICS_BASE_URL. */
  baseUrl: string;
  /** The credential test is abandoned after this long. Default 20 s. */
  credentialTimeoutMs?: number;
  /** Requests per export, the first included, on 429, 5xx and network errors. Default 5. */
  attempts?: number;
  /** Default 1 s doubling up to 30 s, with jitter. */
  backoff?: BackoffPolicy;
  /** A Retry-After longer than this is cut to it. Default 60 s. */
  maxRetryAfterMs?: number;
  /** One export response is abandoned after this long. Default 15 minutes. */
  exportTimeoutMs?: number;
  /** Records per batch. Default 5,000. */
  batchSize?: number;
  /** Parse CSV on worker threads (the local runtime); otherwise on this thread (Lambda). */
  parseInWorkers?: boolean;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** How much of an error response is read: the texts quote 200 characters. */
const ERROR_BODY_BYTES = 4096;

const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/** The cause of a failed fetch as a short text: undici hides it in `cause`. */
function networkMessage(e: unknown): string {
  const err = e as Error & { cause?: unknown };
  const cause = err?.cause as (Error & { code?: string }) | undefined;
  if (cause && typeof cause === 'object' && cause.message) return cause.message;
  return err?.message || String(e);
}

const isTransientStatus = (status: number) => status === 429 || status >= 500;

/** Up to `limit` bytes of the body as text; the rest is not downloaded. */
async function readSome(res: Response, limit = ERROR_BODY_BYTES): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // A body cut short still says what it said so far.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class SimpleAnalyticsClient implements ImportSourceClient {
  private readonly baseUrl: string;
  private readonly credentialTimeoutMs: number;
  private readonly attempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly maxRetryAfterMs: number;
  private readonly exportTimeoutMs: number;
  private readonly batchSize: number;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly workers: CsvParseWorkers | null;

  constructor(options: SimpleAnalyticsClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.credentialTimeoutMs = options.credentialTimeoutMs ?? CREDENTIAL_TEST_TIMEOUT_MS;
    this.attempts = Math.max(1, options.attempts ?? 5);
    this.backoff = options.backoff ?? { baseMs: 1_000, maxMs: 30_000 };
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
    this.exportTimeoutMs = options.exportTimeoutMs ?? 15 * 60_000;
    this.batchSize = options.batchSize ?? 5_000;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? abortableSleep;
    this.random = options.random ?? Math.random;
    this.workers = options.parseInWorkers ? new CsvParseWorkers() : null;
  }

  /** Ends the parse threads, if any. */
  async close(): Promise<void> {
    await this.workers?.close();
  }

  /** The export URL of spec'd form; `fields` are the columns the row mapper reads. */
  exportUrl(hostname: string, start: string, end: string, type: ChunkType, fields: readonly string[] = EXPORT_FIELDS[type]): string {
    const q = new URLSearchParams({
      version: '5',
      format: 'csv',
      hostname,
      start,
      end,
      timezone: 'UTC',
      robots: 'false',
      type,
      fields: fields.join(','),
    });
    return `${this.baseUrl}/api/export/datapoints?${q.toString()}`;
  }

  private request(url: string, credentials: ImportCredentials, signal: AbortSignal): Promise<Response> {
    return this.fetch(url, {
      method: 'GET',
      headers: { 'Api-Key': credentials.api_key, 'User-Id': credentials.user_id, Accept: 'text/csv' },
      redirect: 'manual',
      signal,
    });
  }

  async checkCredentials(credentials: ImportCredentials, hostname: string, now: Date): Promise<CredentialCheck> {
    const day = addDays(todayUtc(now), -1);
    const url = this.exportUrl(hostname, day, day, 'pageviews', ['added_unix', 'uuid']);
    const timeout = AbortSignal.timeout(this.credentialTimeoutMs);
    const secrets = [credentials.api_key];
    try {
      const res = await this.request(url, credentials, timeout);
      if (res.status >= 200 && res.status < 300) {
        await res.body?.cancel().catch(() => undefined);
        return { ok: true };
      }
      return { ok: false, error: sourceStatusError(SIMPLE_ANALYTICS, res.status, await readSome(res), secrets) };
    } catch (e) {
      if (timeout.aborted) {
        return { ok: false, error: sourceNetworkError(SIMPLE_ANALYTICS, `no answer within ${this.credentialTimeoutMs / 1000} seconds`) };
      }
      return { ok: false, error: sourceNetworkError(SIMPLE_ANALYTICS, networkMessage(e), secrets) };
    }
  }

  /** The export response, after retrying what can be retried. */
  private async open(request: ExportRequest, signal: AbortSignal): Promise<Response> {
    const url = this.exportUrl(request.hostname, request.start, request.end, request.type);
    const secrets = [request.credentials.api_key];
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.request(url, request.credentials, signal);
      } catch (e) {
        if (request.signal?.aborted) throw request.signal.reason;
        const message = signal.aborted ? `no answer within ${this.exportTimeoutMs / 1000} seconds` : networkMessage(e);
        if (attempt >= this.attempts) throw new ImportSourceError(sourceNetworkError(SIMPLE_ANALYTICS, message, secrets), false);
        await this.sleep(backoffDelay(attempt, this.backoff, this.random), request.signal);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return res;
      const body = await readSome(res);
      const error = sourceStatusError(SIMPLE_ANALYTICS, res.status, body, secrets);
      if (!isTransientStatus(res.status)) throw new ImportSourceError(error, true);
      if (attempt >= this.attempts) throw new ImportSourceError(error, false);
      const hinted = retryAfterMs(res.headers.get('retry-after'));
      const wait = hinted === null ? backoffDelay(attempt, this.backoff, this.random) : Math.min(hinted, this.maxRetryAfterMs);
      await this.sleep(wait, request.signal);
    }
  }

  async *exportBatches(request: ExportRequest): AsyncIterable<ExportBatch> {
    const signal = request.signal ? AbortSignal.any([request.signal, AbortSignal.timeout(this.exportTimeoutMs)]) : AbortSignal.timeout(this.exportTimeoutMs);
    const res = await this.open(request, signal);
    if (!res.body) return;
    const body = res.body as unknown as AsyncIterable<Uint8Array>;
    const batches = this.workers ? this.workers.batches(body, this.batchSize) : csvBatchesInline(body, this.batchSize);
    let columns: string[] | null = null;
    try {
      for await (const batch of batches) {
        let records = batch;
        if (!columns) {
          columns = (records[0] ?? []).map((c) => c.trim());
          records = records.slice(1);
        }
        if (records.length > 0) yield { columns, records };
      }
    } catch (e) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (e instanceof CsvFormatError) throw new ImportSourceError(sourceFormatError(SIMPLE_ANALYTICS, e.message, [request.credentials.api_key]), true);
      const message = signal.aborted ? `export not finished within ${this.exportTimeoutMs / 1000} seconds` : networkMessage(e);
      throw new ImportSourceError(sourceNetworkError(SIMPLE_ANALYTICS, message, [request.credentials.api_key]), false);
    }
  }
}
