/**
 * Lambda consumer of the event queue (SQS event source mapping with
 * ReportBatchItemFailures): parses each record into EventRows, writes them
 * to the event store, and reports only the records that failed so SQS
 * redelivers just those. Malformed bodies are counted and dropped: they
 * would fail the same way on every redelivery.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { EventKind, EventRow, EventStore } from '#ports/event-store.ts';
import { log } from '#platform/log.ts';

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

/** The record's rows, or null when the body is not an EventRow or an array of them. */
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
    const failed = await writeRecords(store, parsed);
    const rows = parsed.reduce((n, r) => n + r.rows.length, 0);
    log.info('event writer batch', { records: event.Records.length, rows, malformed, failed: failed.length });
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/** Consecutive single-record failures after which the store is taken to be down. */
const DOWN_AFTER = 3;

/**
 * One saveEvents for the whole batch. If it fails, each record is written
 * alone so that one bad record does not hold back the others (the store is
 * idempotent, so rows the failed attempt did store are not doubled) — unless
 * the store looks down, then the rest are reported failed without more calls.
 */
async function writeRecords(store: EventStore, records: readonly ParsedRecord[]): Promise<string[]> {
  if (records.length === 0) return [];
  try {
    await store.saveEvents(records.flatMap((r) => r.rows));
    return [];
  } catch (e) {
    log.error('event store write failed', { records: records.length, message: (e as Error).message });
    if (records.length === 1) return [records[0]!.messageId];
  }
  const failed: string[] = [];
  let inARow = 0;
  for (const record of records) {
    if (inARow >= DOWN_AFTER) {
      failed.push(record.messageId);
      continue;
    }
    try {
      await store.saveEvents(record.rows);
      inARow = 0;
    } catch {
      failed.push(record.messageId);
      inARow++;
    }
  }
  return failed;
}

function logMalformed(record: SQSRecord): void {
  log.error('event writer drop', { reason: 'malformed', messageId: record.messageId, body: record.body.slice(0, 200) });
}
