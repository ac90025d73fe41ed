/** In-process queue for the single-node runtime: batching, retry with backoff, dead-letter file, drain. */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BatchConsumer, Queue } from '#ports/queue.ts';

export interface MemoryQueueOptions<T> {
  consumer: BatchConsumer<T>;
  deadLetterPath: string;
  batchSize?: number;
  maxWaitMs?: number;
  maxAttempts?: number;
  maxDepth?: number;
}

interface Item<T> {
  message: T;
  attempts: number;
  notBefore: number;
}

export class MemoryQueue<T> implements Queue<T> {
  private readonly items: Item<T>[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private stopped = false;
  private idle: (() => void)[] = [];

  constructor(private readonly options: MemoryQueueOptions<T>) {}

  depth(): number {
    return this.items.length;
  }

  async send(message: T): Promise<void> {
    await this.sendBatch([message]);
  }

  async sendBatch(messages: readonly T[]): Promise<void> {
    if (this.items.length + messages.length > (this.options.maxDepth ?? 1_000_000)) throw new Error('queue full');
    for (const message of messages) this.items.push({ message, attempts: 0, notBefore: 0 });
    this.schedule(this.items.length >= (this.options.batchSize ?? 500) ? 0 : (this.options.maxWaitMs ?? 50));
  }

  /** Resolves when everything sent so far is stored or dead-lettered. */
  drain(): Promise<void> {
    if (this.items.length === 0 && !this.running) return Promise.resolve();
    this.schedule(0);
    return new Promise((resolve) => this.idle.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), delayMs);
  }

  private async run(): Promise<void> {
    this.timer = null;
    if (this.running) return;
    this.running = true;
    const now = Date.now();
    const ready = this.items.filter((i) => i.notBefore <= now).slice(0, this.options.batchSize ?? 500);
    const readySet = new Set(ready);
    const rest = this.items.filter((i) => !readySet.has(i));
    this.items.length = 0;
    this.items.push(...rest);
    if (ready.length) {
      let failed: number[];
      try {
        failed = await this.options.consumer(ready.map((i) => i.message));
      } catch {
        failed = ready.map((_, i) => i);
      }
      for (const index of failed) {
        const item = ready[index];
        if (!item) continue;
        item.attempts++;
        if (item.attempts >= (this.options.maxAttempts ?? 8)) this.deadLetter(item.message);
        else {
          item.notBefore = Date.now() + Math.min(5000, 100 * 2 ** (item.attempts - 1)) * (0.5 + Math.random() / 2);
          this.items.push(item);
        }
      }
    }
    this.running = false;
    if (this.items.length) {
      const next = Math.max(0, Math.min(...this.items.map((i) => i.notBefore)) - Date.now());
      this.schedule(this.items.length >= (this.options.batchSize ?? 500) ? next : Math.max(next, this.options.maxWaitMs ?? 50));
    } else {
      for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  private deadLetter(message: T): void {
    mkdirSync(dirname(this.options.deadLetterPath), { recursive: true });
    appendFileSync(this.options.deadLetterPath, `${JSON.stringify(message)}\n`);
  }
}
