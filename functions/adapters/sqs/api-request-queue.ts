/**
 * API request rows on SQS: the event queue carries them as messages
 * `{"api_requests": [row, …]}` (the event writer routes them to their
 * series), packed so a message stays far under SQS's 256 KiB: a row is at
 * most about 700 bytes (a 256-character route and a 64-character consumer).
 */
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { Queue } from '#ports/queue.ts';

/** Rows per message: 200 rows of at most ~700 bytes stay under 140 KiB. */
export const ROWS_PER_MESSAGE = 200;

export class SqsApiRequestQueue implements Queue<ApiRequestRow> {
  constructor(private readonly messages: Queue<{ api_requests: ApiRequestRow[] }>) {}

  send(row: ApiRequestRow): Promise<void> {
    return this.sendBatch([row]);
  }

  /** Every row or a throw: the caller answers 503 and the client sends the batch again (the writer skips rows stored twice only by id, and each send has new ids). */
  sendBatch(rows: readonly ApiRequestRow[]): Promise<void> {
    const messages: { api_requests: ApiRequestRow[] }[] = [];
    for (let i = 0; i < rows.length; i += ROWS_PER_MESSAGE) messages.push({ api_requests: rows.slice(i, i + ROWS_PER_MESSAGE) });
    return this.messages.sendBatch(messages);
  }
}
