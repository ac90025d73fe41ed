/**
 * Port: a work queue (in-process locally, SQS in AWS). Producers send
 * messages; a consumer receives them in batches and reports which failed so
 * only those are redelivered.
 */
export interface Queue<T> {
  send(message: T): Promise<void>;
  sendBatch(messages: readonly T[]): Promise<void>;
}

/** Returns the indexes of the messages that failed (empty: all done). */
export type BatchConsumer<T> = (messages: readonly T[]) => Promise<number[]>;

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * The wait before retry number `attempt` (1 = first retry): exponential from
 * `baseMs`, capped at `maxMs`, with "equal jitter" (half fixed, half random)
 * so that many failed messages do not come back in lockstep. Shared by the
 * queue adapters and the store writers that retry on their own.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}
