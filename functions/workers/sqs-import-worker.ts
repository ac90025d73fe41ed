/**
 * Lambda consumer of the import queue (SQS event source mapping with
 * ReportBatchItemFailures, batch size 1 recommended: one chunk is up to a
 * month of CSV). Each record is one chunk message; chunks that fail on the
 * store or registry side are reported so SQS redelivers them (the worker is
 * idempotent per chunk), and what keeps failing reaches the import DLQ.
 * Malformed bodies are logged and dropped: they would fail the same way on
 * every redelivery.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseChunkMessage } from '#domain/imports/chunk-message.ts';
import type { ImportWorker } from './import-worker.ts';
import { log } from '#platform/log.ts';

export function createSqsImportWorkerHandler(worker: Pick<ImportWorker, 'processChunk'>): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const failures: string[] = [];
    for (const record of event.Records) {
      let message = null;
      try {
        message = parseChunkMessage(JSON.parse(record.body));
      } catch {
        message = null;
      }
      if (!message) {
        log.error('import worker drop', { reason: 'malformed', messageId: record.messageId, body: record.body.slice(0, 200) });
        continue;
      }
      try {
        const result = await worker.processChunk(message);
        if (result.outcome === 'aborted') failures.push(record.messageId);
      } catch (e) {
        log.error('import chunk failed', { messageId: record.messageId, site: message.site, job_id: message.job_id, chunk: message.chunk, message: (e as Error)?.message });
        failures.push(record.messageId);
      }
    }
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
