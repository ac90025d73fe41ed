/**
 * Event store on Amazon Timestream for LiveAnalytics (write side). One
 * multi-measure record per row, named by its kind, identified by the
 * dimensions (site, registration, id, kind, low-cardinality labels) and the
 * arrival time.
 * Every record has Version 1, so writing the same row again is a no-op:
 * that is what makes saveEvents idempotent here.
 */
import {
  RejectedRecordsException,
  WriteRecordsCommand,
  type Dimension,
  type MeasureValue,
  type TimestreamWriteClient,
  type _Record,
} from '@aws-sdk/client-timestream-write';
import { uniqueEvents, type EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import { backoffDelay, type BackoffPolicy } from '#ports/queue.ts';
import type { Logger } from '#ports/logger.ts';

/** Timestream's limits: records per WriteRecords request, bytes per record. */
const RECORDS_PER_REQUEST = 100;
const MAX_RECORD_BYTES = 2048;
/** Headroom for Timestream's own per-record overhead, which it does not document. */
const RECORD_BUDGET = MAX_RECORD_BYTES - 128;

type Field<V> = { [K in keyof EventRow]: EventRow[K] extends V ? K : never }[keyof EventRow];

/** Few distinct values: cheap as dimensions, and part of the series a record belongs to. */
const DIMENSIONS = ['site', 'registration', 'id', 'kind', 'country', 'browser', 'os', 'device', 'language'] as const satisfies readonly Field<string | null>[];
/** High-cardinality or long text: VARCHAR measures. */
const TEXT_MEASURES = [
  'original_id', 'event', 'visitor', 'page_id', 'session_id', 'path', 'query', 'referrer', 'referrer_host',
  'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'source', 'metadata', 'source_id',
] as const satisfies readonly Field<string | null>[];
const INTEGER_MEASURES = ['viewport_width', 'viewport_height', 'screen_width', 'screen_height', 'scrolled'] as const satisfies readonly Field<number | null>[];
const BOOLEAN_MEASURES = ['unique', 'bot', 'https', 'imported'] as const satisfies readonly Field<boolean | null>[];
/** Cut first, in this order, when a record would exceed Timestream's 2 KB. */
const TRIMMABLE = ['metadata', 'query', 'referrer', 'path'] as const;

export interface TimestreamEventStoreOptions {
  /** Where records Timestream rejected (and so dropped) are reported. */
  log: Logger;
  /** Sends per request, the first included, on throttling and 5xx. Default 3. */
  attempts?: number;
  /** Default 100 ms doubling up to 2 s, with jitter. */
  backoff?: BackoffPolicy;
}

/** What happened to the rows given to saveEvents, for logs and metrics. */
export interface TimestreamWriteStats {
  written: number;
  /** Rejected because the same record (version 1) is stored already: a redelivery, so a success. */
  duplicates: number;
  /** Rejected for another reason and dropped, by Timestream's reason. */
  rejected: Record<string, number>;
  /** Stored with long text measures cut to fit a record. */
  trimmed: number;
}

const byteLength = (s: string) => Buffer.byteLength(s);

/** `value` cut to at most `bytes` UTF-8 bytes, never inside a character. */
function cutToBytes(value: string, bytes: number): string {
  if (byteLength(value) <= bytes) return value;
  let out = '';
  let used = 0;
  for (const char of value) {
    const size = byteLength(char);
    if (used + size > bytes) break;
    out += char;
    used += size;
  }
  return out;
}

/** Names and values of the dimensions and text measures, plus room for the fixed-size measures. */
function recordBytes(dimensions: readonly Dimension[], text: ReadonlyMap<string, string>): number {
  let bytes = 128;
  for (const d of dimensions) bytes += byteLength(d.Name ?? '') + byteLength(d.Value ?? '');
  for (const [name, value] of text) bytes += byteLength(name) + byteLength(value);
  return bytes;
}

/** Long text cut (in TRIMMABLE order) until the record fits; reports whether anything was cut. */
function fitText(row: EventRow, dimensions: readonly Dimension[]): { text: Map<string, string>; trimmed: boolean } {
  const text = new Map<string, string>();
  for (const name of TEXT_MEASURES) {
    const value = row[name];
    // Timestream refuses empty values; null and '' both mean "not set" here.
    if (value) text.set(name, value);
  }
  let trimmed = false;
  for (const name of TRIMMABLE) {
    const over = recordBytes(dimensions, text) - RECORD_BUDGET;
    if (over <= 0) break;
    const value = text.get(name);
    if (!value) continue;
    const kept = cutToBytes(value, Math.max(0, byteLength(value) - over));
    if (kept) text.set(name, kept);
    else text.delete(name);
    trimmed = true;
  }
  return { text, trimmed };
}

/** The multi-measure record of one row; nulls are omitted (Timestream has no null measure). */
export function toRecord(row: EventRow): { record: _Record; trimmed: boolean } {
  const dimensions: Dimension[] = [];
  for (const name of DIMENSIONS) {
    const value = row[name];
    if (value) dimensions.push({ Name: name, Value: value, DimensionValueType: 'VARCHAR' });
  }
  const { text, trimmed } = fitText(row, dimensions);
  const measures: MeasureValue[] = [...text].map(([Name, Value]) => ({ Name, Value, Type: 'VARCHAR' }));
  for (const name of INTEGER_MEASURES) {
    const value = row[name];
    if (typeof value === 'number' && Number.isFinite(value)) measures.push({ Name: name, Value: String(Math.round(value)), Type: 'BIGINT' });
  }
  if (typeof row.duration === 'number' && Number.isFinite(row.duration)) {
    measures.push({ Name: 'duration', Value: String(row.duration), Type: 'DOUBLE' });
  }
  for (const name of BOOLEAN_MEASURES) {
    const value = row[name];
    if (typeof value === 'boolean') measures.push({ Name: name, Value: String(value), Type: 'BOOLEAN' });
  }
  return {
    record: { Dimensions: dimensions, MeasureName: row.kind, MeasureValues: measures, Time: String(Math.trunc(row.ts)) },
    trimmed,
  };
}

/** Throttling and server-side failures are worth another try; anything else is not. */
function isRetryable(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown };
  if (err?.name === 'ThrottlingException' || err?.name === 'InternalServerException') return true;
  if (err?.$retryable) return true;
  return (err?.$metadata?.httpStatusCode ?? 0) >= 500;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class TimestreamEventStore implements EventStore {
  readonly stats: TimestreamWriteStats = { written: 0, duplicates: 0, rejected: {}, trimmed: 0 };
  private readonly attempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly log: Logger;

  constructor(
    private readonly client: TimestreamWriteClient,
    private readonly database: string,
    private readonly table: string,
    options: TimestreamEventStoreOptions,
  ) {
    this.log = options.log;
    this.attempts = options.attempts ?? 3;
    this.backoff = options.backoff ?? { baseMs: 100, maxMs: 2_000 };
  }

  /**
   * Throws only when a request still fails after its retries; chunks before
   * it are stored, and a retry of the whole call rewrites them as no-ops.
   */
  async saveEvents(rows: readonly EventRow[]): Promise<void> {
    const records = uniqueEvents(rows).map((row) => {
      const { record, trimmed } = toRecord(row);
      if (trimmed) this.stats.trimmed++;
      return record;
    });
    for (let start = 0; start < records.length; start += RECORDS_PER_REQUEST) {
      await this.writeChunk(records.slice(start, start + RECORDS_PER_REQUEST));
    }
  }

  async close(): Promise<void> {
    // The client belongs to the caller, who may share it.
  }

  private async writeChunk(records: _Record[]): Promise<void> {
    const command = new WriteRecordsCommand({
      DatabaseName: this.database,
      TableName: this.table,
      CommonAttributes: { MeasureValueType: 'MULTI', TimeUnit: 'MILLISECONDS', Version: 1 },
      Records: records,
    });
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(command);
        this.stats.written += records.length;
        return;
      } catch (e) {
        if (e instanceof RejectedRecordsException || (e as Error)?.name === 'RejectedRecordsException') {
          this.countRejections(records.length, e as RejectedRecordsException);
          return;
        }
        if (!isRetryable(e) || attempt >= this.attempts) throw e;
        await sleep(backoffDelay(attempt, this.backoff));
      }
    }
  }

  /** Timestream stored every record of the request except the rejected ones. */
  private countRejections(sent: number, e: RejectedRecordsException): void {
    const rejected = e.RejectedRecords ?? [];
    let dropped = 0;
    const reasons: Record<string, number> = {};
    for (const r of rejected) {
      if (r.ExistingVersion !== undefined && r.ExistingVersion !== null) {
        this.stats.duplicates++;
        continue;
      }
      const reason = (r.Reason ?? 'unknown').slice(0, 120);
      reasons[reason] = (reasons[reason] ?? 0) + 1;
      this.stats.rejected[reason] = (this.stats.rejected[reason] ?? 0) + 1;
      dropped++;
    }
    this.stats.written += sent - rejected.length;
    if (dropped > 0) {
      this.log.error('timestream rejected records dropped', { dropped, reasons });
    }
  }
}
