/**
 * Queue on Amazon SQS: each message is one JSON body, sent with
 * SendMessageBatch in requests of at most 10 entries and 256 KiB. Entries
 * SQS fails on its side are retried a few times; anything still unsent
 * makes the call throw, so the producer knows the message is not queued.
 */
import { SendMessageBatchCommand, type SQSClient, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { backoffDelay, type BackoffPolicy, type Queue } from '#ports/queue.ts';

/** SQS limits for one SendMessageBatch request. */
const MAX_ENTRIES = 10;
const MAX_BYTES = 256 * 1024;

export interface SqsQueueOptions {
  /** Sends per entry, the first included. Default 3. */
  attempts?: number;
  /** Wait between sends of failed entries. Default 50 ms doubling up to 1 s, with jitter. */
  backoff?: BackoffPolicy;
}

/** Some messages could not be queued; `failures` says why, per message. */
export class SqsSendError extends Error {
  constructor(readonly failures: readonly { code: string; message: string }[]) {
    super(`SQS refused ${failures.length} message(s): ${[...new Set(failures.map((f) => f.code))].join(', ')}`);
    this.name = 'SqsSendError';
  }
}

interface Pending {
  body: string;
  bytes: number;
}

interface Failure {
  entry: Pending;
  code: string;
  message: string;
  /** SQS blames the request (too large, invalid characters…): resending cannot help. */
  senderFault: boolean;
}

/** Splits bodies into requests within both SQS limits, keeping their order. */
export function chunkEntries<E extends { bytes: number }>(entries: readonly E[]): E[][] {
  const chunks: E[][] = [];
  let current: E[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (current.length > 0 && (current.length === MAX_ENTRIES || bytes + entry.bytes > MAX_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += entry.bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export class SqsQueue<T> implements Queue<T> {
  private readonly attempts: number;
  private readonly backoff: BackoffPolicy;

  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    options: SqsQueueOptions = {},
  ) {
    this.attempts = options.attempts ?? 3;
    this.backoff = options.backoff ?? { baseMs: 50, maxMs: 1_000 };
  }

  send(message: T): Promise<void> {
    return this.sendBatch([message]);
  }

  async sendBatch(messages: readonly T[]): Promise<void> {
    const entries = messages.map((m): Pending => {
      const body = JSON.stringify(m);
      return { body, bytes: Buffer.byteLength(body) };
    });
    const tooLarge = entries.filter((e) => e.bytes > MAX_BYTES);
    if (tooLarge.length > 0) {
      throw new SqsSendError(tooLarge.map((e) => ({ code: 'MessageTooLarge', message: `${e.bytes} bytes` })));
    }
    const failures: Failure[] = [];
    for (const chunk of chunkEntries(entries)) failures.push(...(await this.sendWithRetries(chunk)));
    if (failures.length > 0) throw new SqsSendError(failures);
  }

  /** The entries still failing after the allowed attempts (or at once, when the sender is at fault). */
  private async sendWithRetries(chunk: readonly Pending[]): Promise<Failure[]> {
    let pending = chunk;
    const final: Failure[] = [];
    for (let attempt = 1; pending.length > 0; attempt++) {
      const failures = await this.sendChunk(pending);
      final.push(...failures.filter((f) => f.senderFault));
      const retryable = failures.filter((f) => !f.senderFault);
      if (attempt >= this.attempts) {
        final.push(...retryable);
        break;
      }
      pending = retryable.map((f) => f.entry);
      if (pending.length > 0) await sleep(backoffDelay(attempt, this.backoff));
    }
    return final;
  }

  private async sendChunk(chunk: readonly Pending[]): Promise<Failure[]> {
    const entries: SendMessageBatchRequestEntry[] = chunk.map((e, i) => ({ Id: String(i), MessageBody: e.body }));
    const result = await this.client.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
    return (result.Failed ?? []).flatMap((f) => {
      const entry = chunk[Number(f.Id)];
      return entry ? [{ entry, code: f.Code ?? 'Unknown', message: f.Message ?? '', senderFault: f.SenderFault === true }] : [];
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
