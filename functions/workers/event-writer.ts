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
export async function writeIsolatingFailures(store: EventStore, count: number, rowsOf: (from: number, to: number) => readonly EventRow[]): Promise<number[]> {
  const failed: number[] = [];
  /** Messages that failed alone since the last write that succeeded. */
  let inARow = 0;
  const write = async (from: number, to: number): Promise<void> => {
    if (inARow >= DOWN_AFTER) {
      for (let i = from; i < to; i++) failed.push(i);
      return;
    }
    try {
      await store.saveEvents(rowsOf(from, to));
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

/** The in-process queue's consumer (`npm start`): a message is one row. */
export function createEventWriter(store: EventStore): BatchConsumer<EventRow> {
  return (rows) => writeIsolatingFailures(store, rows.length, (from, to) => (from === 0 && to === rows.length ? rows : rows.slice(from, to)));
}

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

interface ParsedRecord {
  messageId: string;
  rows: EventRow[];
}

function logMalformed(record: SQSRecord): void {
  log.error('event writer drop', { reason: 'malformed', messageId: record.messageId, body: record.body.slice(0, 200) });
}

/**
 * The SQS consumer (Lambda): malformed bodies are counted and dropped, since
 * they would fail the same way on every redelivery; the rest are written by
 * the strategy above and the records that failed are reported.
 */
export function createSqsEventWriterHandler(store: EventStore): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const parsed: ParsedRecord[] = [];
    let malformed = 0;
    for (const record of event.Records) {
      const rows = parseRecord(record.body);
      if (rows) parsed.push({ messageId: record.messageId, rows });
      else {
        malformed++;
        logMalformed(record);
      }
    }
    const failed = await writeIsolatingFailures(store, parsed.length, (from, to) => parsed.slice(from, to).flatMap((r) => r.rows));
    const rows = parsed.reduce((n, r) => n + r.rows.length, 0);
    log.info('event writer batch', { records: event.Records.length, rows, malformed, failed: failed.length });
    return { batchItemFailures: failed.map((i) => ({ itemIdentifier: (parsed[i] as ParsedRecord).messageId })) };
  };
}
