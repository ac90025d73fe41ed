/**
 * The event writer: collected rows from a queue into the event store, with
 * one failure strategy for every transport.
 *
 * A batch is written with one saveEvents. When that fails, the batch is split
 * in halves, and failing halves again, until the messages that cannot be
 * stored are isolated: the others are stored (the store is idempotent, so
 * rows a failed attempt did store are not doubled) and only those messages go
 * back to the transport, which retries them with backoff and finally
 * dead-letters them. Once DOWN_AFTER messages have failed alone with no write
 * succeeding between them, the store is taken to be down and the rest of the
 * batch is reported failed without more calls. A poisoned message costs
 * about 2 log2(batch) extra writes; a store that is down, about
 * log2(batch) + 2 DOWN_AFTER.
 *
 * Transports: the in-process queue of `npm start` (a message is a row, failed
 * indexes come back to the MemoryQueue) and SQS on AWS (a message is a record
 * holding a row or an array of rows; failures are reported as
 * batchItemFailures, the event source mapping having ReportBatchItemFailures).
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventKind, EventRow } from '#domain/rows/event-row.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { BatchConsumer } from '#ports/queue.ts';
import { log } from '#platform/log.ts';

/** Messages failing alone with no successful write between them, before the store is taken to be down. */
export const DOWN_AFTER = 3;

/**
 * Writes messages 0 … count - 1 (`rowsOf(from, to)` gives the rows of
 * messages from … to - 1) and returns the indexes of the messages that could
 * not be stored, by the strategy above.
 */
export async function writeIsolatingFailures<R>(save: (rows: readonly R[]) => Promise<void>, count: number, rowsOf: (from: number, to: number) => readonly R[]): Promise<number[]> {
  const failed: number[] = [];
  /** Messages that failed alone since the last write that succeeded. */
  let inARow = 0;
  const write = async (from: number, to: number): Promise<void> => {
    if (inARow >= DOWN_AFTER) {
      for (let i = from; i < to; i++) failed.push(i);
      return;
    }
    try {
      await save(rowsOf(from, to));
      inARow = 0;
    } catch (e) {
      if (from === 0 && to === count) log.error('event store write failed', { messages: count, message: (e as Error).message });
      if (to - from === 1) {
        failed.push(from);
        inARow++;
        return;
      }
      const mid = (from + to) >>> 1;
      await write(from, mid);
      await write(mid, to);
    }
  };
  if (count > 0) await write(0, count);
  return failed;
}

/** An in-process queue's consumer (`npm start`): a message is one row, written by `save` with the strategy above. */
function rowWriter<R>(save: (rows: readonly R[]) => Promise<void>): BatchConsumer<R> {
  return (rows) => writeIsolatingFailures(save, rows.length, (from, to) => (from === 0 && to === rows.length ? rows : rows.slice(from, to)));
}

/** The collector queue's consumer: collected rows into the event store. */
export const createEventWriter = (store: EventStore): BatchConsumer<EventRow> => rowWriter((rows) => store.saveEvents(rows));

/** The ingest queue's consumer: API request rows into their series. */
export const createApiRequestWriter = (store: ApiRequestStore): BatchConsumer<ApiRequestRow> => rowWriter((rows) => store.saveApiRequests(rows));

const KINDS: ReadonlySet<EventKind> = new Set(['pageview', 'event', 'append']);

/** The fields every stored row needs; the collector built the rest. */
function isEventRow(value: unknown): value is EventRow {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  return (
    typeof row.site === 'string' &&
    row.site !== '' &&
    typeof row.id === 'string' &&
    row.id !== '' &&
    typeof row.ts === 'number' &&
    Number.isSafeInteger(row.ts) &&
    KINDS.has(row.kind as EventKind)
  );
}

/** An SQS record's rows, or null when the body is not an EventRow or an array of them. */
export function parseRecord(body: string): EventRow[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const rows = Array.isArray(parsed) ? parsed : [parsed];
  return rows.length > 0 && rows.every(isEventRow) ? rows : null;
}

/** What SQS carries for API requests (POST /api/ingest): `{"api_requests": [row, …]}`. */
export interface ApiRequestMessage {
  api_requests: ApiRequestRow[];
}

function isApiRequestRow(value: unknown): value is ApiRequestRow {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  return (
    typeof row.site === 'string' &&
    row.site !== '' &&
    typeof row.registration === 'string' &&
    typeof row.id === 'string' &&
    row.id !== '' &&
    typeof row.ts === 'number' &&
    Number.isSafeInteger(row.ts) &&
    typeof row.method === 'string' &&
    typeof row.route === 'string' &&
    Number.isInteger(row.status) &&
    typeof row.duration_ms === 'number'
  );
}

/** An SQS record's API request rows, or null when the body is not an ApiRequestMessage. */
export function parseApiRecord(body: string): ApiRequestRow[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const rows = (parsed as Partial<ApiRequestMessage> | null)?.api_requests;
  return Array.isArray(rows) && rows.length > 0 && rows.every(isApiRequestRow) ? rows : null;
}

interface ParsedRecord<R> {
  messageId: string;
  rows: R[];
}

function logMalformed(record: SQSRecord): void {
  log.error('event writer drop', { reason: 'malformed', messageId: record.messageId, body: record.body.slice(0, 200) });
}

/** Writes the parsed records of one kind by the strategy above; the message ids of those that failed. */
async function writeRecords<R>(save: (rows: readonly R[]) => Promise<void>, parsed: readonly ParsedRecord<R>[]): Promise<string[]> {
  const failed = await writeIsolatingFailures(save, parsed.length, (from, to) => parsed.slice(from, to).flatMap((r) => r.rows));
  return failed.map((i) => (parsed[i] as ParsedRecord<R>).messageId);
}

/**
 * The SQS consumer (Lambda): collected rows into the event store and API request rows
 * (`{"api_requests": […]}`, POST /api/ingest) into their series. Malformed bodies are counted
 * and dropped, since they would fail the same way on every redelivery; the rest are written by
 * the strategy above and the records that failed are reported.
 */
export function createSqsEventWriterHandler(store: EventStore, apiRequests?: ApiRequestStore): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const events: ParsedRecord<EventRow>[] = [];
    const requests: ParsedRecord<ApiRequestRow>[] = [];
    let malformed = 0;
    for (const record of event.Records) {
      const api = apiRequests && record.body.startsWith('{"api_requests"') ? parseApiRecord(record.body) : null;
      const rows = api ? null : parseRecord(record.body);
      if (api) requests.push({ messageId: record.messageId, rows: api });
      else if (rows) events.push({ messageId: record.messageId, rows });
      else {
        malformed++;
        logMalformed(record);
      }
    }
    const failed = [
      ...(await writeRecords((rows) => store.saveEvents(rows), events)),
      ...(apiRequests ? await writeRecords((rows) => apiRequests.saveApiRequests(rows), requests) : []),
    ];
    const rows = events.reduce((n, r) => n + r.rows.length, 0);
    const apiRows = requests.reduce((n, r) => n + r.rows.length, 0);
    log.info('event writer batch', { records: event.Records.length, rows, api_requests: apiRows, malformed, failed: failed.length });
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
