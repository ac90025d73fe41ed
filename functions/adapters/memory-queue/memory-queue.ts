/**
 * The in-process queue of the local runtime (SQS's stand-in): producers push
 * and return at once; one consumer receives batches (full, or after a short
 * wait), failed messages come back with exponential backoff, and messages
 * that keep failing go to a dead-letter file instead of being lost.
 */
import { QueueFullError } from '#domain/queue-full.ts';
import { backoffDelay, type BackoffPolicy, type BatchConsumer, type Queue } from '#ports/queue.ts';
import type { ReceiptJournal, RecoveredSegment } from '#adapters/receipt-journal/receipt-journal.ts';
import type { InfoLogger } from '#ports/logger.ts';
import { approxBytes } from './approx-bytes.ts';
import { DeadLetterFile } from './dead-letter-file.ts';
import { Fifo } from './fifo.ts';

export interface MemoryQueueOptions<T> {
  consumer: BatchConsumer<T>;
  /** Where a consumer that threw, dead letters and their replays are reported. */
  log: InfoLogger;
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
  /**
   * JSON-lines file for messages that exhausted their attempts. Without it, or when writing it
   * fails, only their count is logged (never the rows: paths, metadata, visitor hashes) and they
   * stay in the journal, if any, for the next start.
   */
  deadLetterPath?: string;
  /** Messages held at most (waiting, in flight, or backing off). Default 1,000,000. */
  maxDepth?: number;
  /** Approximate bytes held at most (sizeOf), the same way. Default 256 MiB. */
  maxBytes?: number;
  /** A message's rough size in memory, counted against maxBytes. Default approxBytes, which walks any value. */
  sizeOf?: (message: T) => number;
  /** Jitter source, injectable for tests. */
  random?: () => number;
  /**
   * Durable receipt: `send` resolves only once the message is in this journal,
   * and a message is released from it once consumed or written as a dead letter.
   */
  journal?: ReceiptJournal<T>;
  /** Whether sends are journaled; off, the journal only holds what `restore` took back. Default true. */
  journalSends?: boolean;
}

interface Entry<T> {
  message: T;
  /** Deliveries so far. */
  attempts: number;
  /** When it was sent (performance.now()): a partial batch goes out once its oldest message has waited maxWaitMs. */
  sentAt: number;
  /** The journal segment holding it, when the queue has a journal. */
  segment: number | null;
  /** sizeOf(message), counted while it is held. */
  bytes: number;
}

export class MemoryQueue<T> implements Queue<T> {
  private readonly consumer: BatchConsumer<T>;
  private readonly log: InfoLogger;
  private readonly batchSize: number;
  private readonly maxWaitMs: number;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly deadLetterFile: DeadLetterFile | null;
  private readonly maxDepth: number;
  private readonly maxBytes: number;
  private readonly sizeOf: (message: T) => number;
  private readonly random: () => number;
  private readonly journal: ReceiptJournal<T> | undefined;
  private readonly journalSends: boolean;
  /** Messages being journaled (and their bytes): they count against the bounds before they are held. */
  private reserved = 0;
  private reservedBytes = 0;

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
  /** performance.now() of the consumer's last failure; -Infinity before any. */
  private lastFailureAt = -Infinity;

  constructor(options: MemoryQueueOptions<T>) {
    this.consumer = options.consumer;
    this.log = options.log;
    this.batchSize = options.batchSize ?? 500;
    this.maxWaitMs = options.maxWaitMs ?? 50;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.maxAttempts = options.maxAttempts ?? 8;
    this.backoff = options.backoff ?? { baseMs: 100, maxMs: 5_000 };
    this.deadLetterFile = options.deadLetterPath ? new DeadLetterFile(options.deadLetterPath) : null;
    this.maxDepth = options.maxDepth ?? 1_000_000;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.sizeOf = options.sizeOf ?? approxBytes;
    this.random = options.random ?? Math.random;
    this.journal = options.journal;
    this.journalSends = options.journalSends ?? true;
  }

  send(message: T): Promise<void> {
    return this.sendBatch([message]);
  }

  /**
   * All or nothing: a batch that does not fit under maxDepth and maxBytes is
   * refused whole, before anything is journaled. With a journal, resolves once
   * the batch is on disk.
   */
  async sendBatch(messages: readonly T[]): Promise<void> {
    if (this.stopped) throw new Error('queue stopped');
    const sizes = messages.map(this.sizeOf);
    let bytes = 0;
    for (const size of sizes) bytes += size;
    if (this.held + this.reserved + messages.length > this.maxDepth || this.heldBytes + this.reservedBytes + bytes > this.maxBytes) {
      throw new QueueFullError(this.held, this.heldBytes);
    }
    let segment: number | null = null;
    if (this.journal && this.journalSends) {
      this.reserved += messages.length;
      this.reservedBytes += bytes;
      try {
        segment = await this.journal.append(messages);
      } finally {
        this.reserved -= messages.length;
        this.reservedBytes -= bytes;
      }
    }
    this.hold(messages, sizes, segment);
  }

  /** Takes back what a journal recovered at start, ahead of anything sent later; not bound by maxDepth or maxBytes. */
  restore(recovered: readonly RecoveredSegment<T>[]): number {
    let n = 0;
    for (const { segment, messages } of recovered) {
      this.hold(messages, messages.map(this.sizeOf), segment);
      n += messages.length;
    }
    return n;
  }

  private hold(messages: readonly T[], sizes: readonly number[], segment: number | null): void {
    const sentAt = performance.now();
    messages.forEach((message, i) => {
      const size = sizes[i] as number;
      this.fresh.push({ message, attempts: 0, sentAt, bytes: size, segment });
      this.heldBytes += size;
    });
    this.held += messages.length;
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
   * Re-sends every dead letter, oldest first, and returns how many were
   * re-sent. The file is first renamed aside, so dead letters written
   * meanwhile go to a fresh file, and a replay cut short by a crash is taken
   * up again by the next one (a message sent twice that way is stored once:
   * the store de-duplicates redeliveries). With a journal, each message is
   * journaled before the file it came from is deleted. Lines that are not
   * JSON are written back to the dead-letter file.
   */
  replayDeadLetters(): Promise<number> {
    const replay = this.deadLetters.then(() =>
      this.deadLetterFile
        ? this.deadLetterFile.replay<T>(this.batchSize, async (chunk) => {
            await this.whenRoomFor(chunk.length);
            await this.sendBatch(chunk);
          })
        : 0,
    );
    this.deadLetters = replay.catch(() => undefined);
    return replay;
  }

  /**
   * Replays dead letters now and then every `everyMs` once the consumer has
   * gone that long without a failure (the replayed messages are themselves the
   * probe: if the store is still down they fail and come back here). Returns
   * the stop function.
   */
  replayDeadLettersEvery(everyMs: number): () => void {
    const replay = () => {
      if (this.stopped || performance.now() - this.lastFailureAt < everyMs) return;
      this.replayDeadLetters()
        .then((count) => {
          if (count > 0) this.log.info('dead letters replayed', { count, path: this.deadLetterFile?.path });
        })
        .catch((e: unknown) => this.log.error('dead-letter replay failed', { message: (e as Error).message }));
    };
    replay();
    const timer = setInterval(replay, everyMs).unref();
    return () => clearInterval(timer);
  }

  /** A replay waits for room rather than failing half-way on a busy queue. */
  private async whenRoomFor(n: number): Promise<void> {
    while (this.held + this.reserved + n > this.maxDepth) {
      if (this.stopped) throw new Error('queue stopped');
      await new Promise((ok) => setTimeout(ok, 100));
    }
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
      const positions = new Set(failed.filter((i) => Number.isInteger(i) && i >= 0 && i < batch.length));
      if (positions.size > 0) this.lastFailureAt = performance.now();
      return positions;
    } catch (e) {
      this.lastFailureAt = performance.now();
      this.log.error('queue consumer threw', { size: batch.length, message: (e as Error)?.message });
      return new Set(batch.keys());
    }
  }

  private settle(batch: readonly Entry<T>[], failed: ReadonlySet<number>): void {
    this.held -= batch.length - failed.size;
    this.release(failed.size === 0 ? batch : batch.filter((_, i) => !failed.has(i)));
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

  /** Entries that left the queue for good (stored, or on disk as dead letters) leave the journal too. */
  private release(entries: readonly Entry<T>[]): void {
    if (!this.journal) return;
    const counts = new Map<number, number>();
    for (const { segment } of entries) if (segment !== null) counts.set(segment, (counts.get(segment) ?? 0) + 1);
    for (const [segment, count] of counts) this.journal.release(segment, count);
  }

  private deadLetter(entries: readonly Entry<T>[]): void {
    this.held -= entries.length;
    for (const entry of entries) this.heldBytes -= entry.bytes;
    this.deadLettered += entries.length;
    const lines = entries.map((entry) => `${JSON.stringify(entry.message)}\n`).join('');
    this.deadLetters = this.deadLetters.then(() => this.writeDeadLetters(lines, entries));
  }

  private async writeDeadLetters(lines: string, entries: readonly Entry<T>[]): Promise<void> {
    const count = entries.length;
    try {
      if (!this.deadLetterFile) throw new Error('no dead-letter file configured');
      await this.deadLetterFile.append(lines);
      this.release(entries);
      this.log.error('messages dead-lettered', { count, path: this.deadLetterFile.path });
    } catch (e) {
      // Counts only: the rows are visitors' data and never go to a log. Unreleased, those in the
      // journal stay there and come back at the next start (`journaled`).
      const { code, name } = (e ?? {}) as NodeJS.ErrnoException;
      const journaled = entries.filter((entry) => entry.segment !== null).length;
      this.log.error('dead-letter write failed', { count, journaled, bytes: Buffer.byteLength(lines), error: code ?? name ?? 'Error', path: this.deadLetterFile?.path ?? null });
    }
  }

  private resolveDrains(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
