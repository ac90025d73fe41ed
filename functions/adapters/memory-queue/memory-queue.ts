/**
 * The in-process queue of the local runtime (SQS's stand-in): producers push
 * and return at once; one consumer receives batches (full, or after a short
 * wait), failed messages come back with exponential backoff, and messages
 * that keep failing go to a dead-letter file instead of being lost.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { backoffDelay, type BackoffPolicy, type BatchConsumer, type Queue } from '#ports/queue.ts';
import { log } from '#platform/log.ts';

export interface MemoryQueueOptions<T> {
  consumer: BatchConsumer<T>;
  /** Most messages per consumer call. Default 500. */
  batchSize?: number;
  /** Batches the consumer may work on at once, as a Lambda's concurrency on an SQS queue. Default 1. */
  concurrency?: number;
  /** Longest a message waits for its batch to fill. Default 50 ms. */
  maxWaitMs?: number;
  /** Deliveries per message before it is dead-lettered. Default 8. */
  maxAttempts?: number;
  /** Retry backoff. Default 100 ms doubling up to 5 s, with jitter. */
  backoff?: BackoffPolicy;
  /** JSON-lines file for messages that exhausted their attempts; without it they are logged. */
  deadLetterPath?: string;
  /** Messages held at most (waiting, in flight, or backing off). Default 1,000,000. */
  maxDepth?: number;
  /** Approximate bytes held at most (see approxBytes), the same way. Default 256 MiB. */
  maxBytes?: number;
  /** Jitter source, injectable for tests. */
  random?: () => number;
}

/** `send` refused because the queue holds `maxDepth` messages or `maxBytes` already. */
export class QueueFullError extends Error {
  constructor(depth: number, bytes: number) {
    super(`queue full: ${depth} messages waiting (about ${bytes} bytes)`);
    this.name = 'QueueFullError';
  }
}

/**
 * A message's rough size in memory, from its string lengths (UTF-16: two
 * bytes a character) plus a word for every other value and every property.
 * Computed once per message, so it only walks what a row or a chunk holds.
 */
export function approxBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + 2 * value.length;
  if (typeof value !== 'object' || value === null) return 8;
  let bytes = 16;
  if (Array.isArray(value)) {
    for (const item of value) bytes += approxBytes(item);
    return bytes;
  }
  for (const key in value) bytes += 8 + approxBytes((value as Record<string, unknown>)[key]);
  return bytes;
}

interface Entry<T> {
  message: T;
  /** Deliveries so far. */
  attempts: number;
  /** When it was sent (performance.now()): a partial batch goes out once its oldest message has waited maxWaitMs. */
  sentAt: number;
  /** approxBytes(message), counted while it is held. */
  bytes: number;
}

/** FIFO with O(1) amortized shift, so a million waiting messages do not make every batch O(n). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  peek(): T | undefined {
    return this.items[this.head];
  }

  push(item: T): void {
    this.items.push(item);
  }

  take(n: number): T[] {
    const out = this.items.slice(this.head, this.head + n);
    this.head += out.length;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return out;
  }
}

export class MemoryQueue<T> implements Queue<T> {
  private readonly consumer: BatchConsumer<T>;
  private readonly batchSize: number;
  private readonly maxWaitMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly deadLetterPath: string | undefined;
  private readonly maxDepth: number;
  private readonly maxBytes: number;
  private readonly random: () => number;

  private readonly fresh = new Fifo<Entry<T>>();
  /** Retries whose backoff has elapsed; delivered before fresh messages. */
  private readonly due = new Fifo<Entry<T>>();
  private readonly backoffTimers = new Set<NodeJS.Timeout>();
  private waitTimer: NodeJS.Timeout | null = null;
  private readonly concurrency: number;
  /** Batches handed to the consumer and not yet settled. */
  private inFlight = 0;
  /** Set when waiting messages must go out without waiting for a full batch (waited long enough, or retries due). */
  private flushNow = false;
  private held = 0;
  private heldBytes = 0;
  private stopped = false;
  private deadLetters: Promise<unknown> = Promise.resolve();
  private drainWaiters: (() => void)[] = [];
  /** Messages written to the dead-letter file (or logged) since start. */
  deadLettered = 0;

  constructor(options: MemoryQueueOptions<T>) {
    this.consumer = options.consumer;
    this.batchSize = options.batchSize ?? 500;
    this.maxWaitMs = options.maxWaitMs ?? 50;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.maxAttempts = options.maxAttempts ?? 8;
    this.backoff = options.backoff ?? { baseMs: 100, maxMs: 5_000 };
    this.deadLetterPath = options.deadLetterPath;
    this.maxDepth = options.maxDepth ?? 1_000_000;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.random = options.random ?? Math.random;
  }

  send(message: T): Promise<void> {
    return this.sendBatch([message]);
  }

  /** All or nothing: a batch that does not fit under maxDepth and maxBytes is refused whole. */
  async sendBatch(messages: readonly T[]): Promise<void> {
    if (this.stopped) throw new Error('queue stopped');
    if (this.held + messages.length > this.maxDepth) throw new QueueFullError(this.held, this.heldBytes);
    const sizes = messages.map(approxBytes);
    let bytes = 0;
    for (const size of sizes) bytes += size;
    if (this.heldBytes + bytes > this.maxBytes) throw new QueueFullError(this.held, this.heldBytes);
    const sentAt = performance.now();
    messages.forEach((message, i) => this.fresh.push({ message, attempts: 0, sentAt, bytes: sizes[i] as number }));
    this.held += messages.length;
    this.heldBytes += bytes;
    this.pump();
  }

  /** Messages not yet consumed or dead-lettered (waiting, in flight, or backing off). */
  depth(): number {
    return this.held;
  }

  /** Approximate bytes of the messages depth() counts. */
  bytes(): number {
    return this.heldBytes;
  }

  /**
   * Resolves once every message sent so far (and any sent meanwhile) is
   * consumed or dead-lettered; waiting batches go out at once instead of
   * waiting to fill. Used on SIGTERM: nothing answered 200 is lost.
   */
  async drain(): Promise<void> {
    if (this.held > 0 && !this.stopped) {
      await new Promise<void>((resolve) => {
        this.drainWaiters.push(resolve);
        this.pump();
      });
    }
    await this.deadLetters;
  }

  /** Stops delivering and cancels timers; messages still held stay unconsumed. Pending drains resolve. */
  stop(): void {
    this.stopped = true;
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimer = null;
    for (const timer of this.backoffTimers) clearTimeout(timer);
    this.backoffTimers.clear();
    this.resolveDrains();
  }

  /**
   * Operator recovery: re-sends every message in the dead-letter file and
   * empties it. Lines that are not JSON stay in the file. Returns how many were re-sent.
   */
  replayDeadLetters(): Promise<number> {
    const replay = this.deadLetters.then(() => this.replayFile());
    this.deadLetters = replay.catch(() => undefined);
    return replay;
  }

  private async replayFile(): Promise<number> {
    const path = this.deadLetterPath;
    if (!path) return 0;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
    const messages: T[] = [];
    const unreadable: string[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        messages.push(JSON.parse(line) as T);
      } catch {
        unreadable.push(line);
      }
    }
    // Sent before the file is rewritten: a refusal (queue full) leaves the file as it was.
    await this.sendBatch(messages);
    await writeFile(path, unreadable.map((line) => `${line}\n`).join(''));
    return messages.length;
  }

  private get waiting(): number {
    return this.due.length + this.fresh.length;
  }

  private pump(): void {
    while (!this.stopped && this.inFlight < this.concurrency && this.waiting > 0) {
      // While someone waits for a drain, partial batches go out at once.
      if (this.waiting >= this.batchSize || this.flushNow || this.drainWaiters.length > 0) {
        void this.deliver();
        continue;
      }
      if (this.waitTimer) return;
      const oldest = this.fresh.peek();
      const left = oldest ? oldest.sentAt + this.maxWaitMs - performance.now() : 0;
      if (left <= 0) {
        void this.deliver();
        continue;
      }
      this.waitTimer = setTimeout(() => {
        this.waitTimer = null;
        this.flushNow = true;
        this.pump();
      }, left);
      return;
    }
  }

  private async deliver(): Promise<void> {
    this.inFlight++;
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimer = null;
    const batch = this.due.take(this.batchSize);
    batch.push(...this.fresh.take(this.batchSize - batch.length));
    for (const entry of batch) entry.attempts++;
    const failed = await this.consume(batch);
    this.settle(batch, failed);
    this.inFlight--;
    // What is left waits until its oldest message has waited maxWaitMs (or at once, if it has),
    // so a busy queue sends few large batches rather than many small ones.
    this.flushNow = this.due.length > 0;
    this.pump();
    if (this.held === 0) this.resolveDrains();
  }

  /** The failed positions; a consumer that throws failed them all. */
  private async consume(batch: readonly Entry<T>[]): Promise<Set<number>> {
    try {
      const failed = await this.consumer(batch.map((entry) => entry.message));
      return new Set(failed.filter((i) => Number.isInteger(i) && i >= 0 && i < batch.length));
    } catch (e) {
      log.error('queue consumer threw', { size: batch.length, message: (e as Error)?.message });
      return new Set(batch.keys());
    }
  }

  private settle(batch: readonly Entry<T>[], failed: ReadonlySet<number>): void {
    this.held -= batch.length - failed.size;
    batch.forEach((entry, i) => {
      if (!failed.has(i)) this.heldBytes -= entry.bytes;
    });
    const retry: Entry<T>[] = [];
    const dead: Entry<T>[] = [];
    for (const i of failed) {
      const entry = batch[i] as Entry<T>;
      (entry.attempts >= this.maxAttempts ? dead : retry).push(entry);
    }
    if (dead.length > 0) this.deadLetter(dead);
    this.scheduleRetries(retry);
  }

  /** One timer per attempt count: entries that failed together come back together. */
  private scheduleRetries(entries: readonly Entry<T>[]): void {
    const byAttempts = new Map<number, Entry<T>[]>();
    for (const entry of entries) {
      const group = byAttempts.get(entry.attempts);
      if (group) group.push(entry);
      else byAttempts.set(entry.attempts, [entry]);
    }
    for (const [attempts, group] of byAttempts) {
      const timer = setTimeout(() => {
        this.backoffTimers.delete(timer);
        for (const entry of group) this.due.push(entry);
        this.flushNow = true;
        this.pump();
      }, backoffDelay(attempts, this.backoff, this.random));
      this.backoffTimers.add(timer);
    }
  }

  private deadLetter(entries: readonly Entry<T>[]): void {
    this.held -= entries.length;
    for (const entry of entries) this.heldBytes -= entry.bytes;
    this.deadLettered += entries.length;
    const lines = entries.map((entry) => `${JSON.stringify(entry.message)}\n`).join('');
    this.deadLetters = this.deadLetters.then(() => this.writeDeadLetters(lines, entries.length));
  }

  private async writeDeadLetters(lines: string, count: number): Promise<void> {
    const path = this.deadLetterPath;
    try {
      if (!path) throw new Error('no dead-letter file configured');
      // Owner-only: the messages are visitors' rows and import chunks.
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await appendFile(path, lines, { mode: 0o600 });
      log.error('messages dead-lettered', { count, path });
    } catch (e) {
      // Last resort: the messages themselves go to the log so an operator can still recover them.
      log.error('dead-letter write failed', { count, message: (e as Error).message, lines });
    }
  }

  private resolveDrains(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
