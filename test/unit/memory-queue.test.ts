import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approxBytes } from '#adapters/memory-queue/approx-bytes.ts';
import { MemoryQueue, type MemoryQueueOptions } from '#adapters/memory-queue/memory-queue.ts';
import { EVENT_ROW_COLUMNS } from '#adapters/receipt-journal/event-row-codec.ts';
import { eventRowBytes, type EventRow } from '#domain/rows/event-row.ts';
import { QueueFullError } from '#domain/queue-full.ts';
import { backoffDelay, type BatchConsumer } from '#ports/queue.ts';
import { log } from '#platform/log.ts';

/** A consumer that records every batch it receives and answers with `fail(batch, call)`. */
function recorder(fail: (batch: readonly number[], call: number) => number[] | Promise<number[]> = () => []) {
  const batches: { at: number; messages: number[] }[] = [];
  const consumer: BatchConsumer<number> = async (messages) => {
    batches.push({ at: Date.now(), messages: [...messages] });
    return fail(messages, batches.length);
  };
  return { batches, consumer };
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

let dir: string;
let deadLetterPath: string;
const queues: MemoryQueue<number>[] = [];

function queue(options: Partial<MemoryQueueOptions<number>> & Pick<MemoryQueueOptions<number>, 'consumer'>): MemoryQueue<number> {
  const q = new MemoryQueue<number>({ log, deadLetterPath, backoff: { baseMs: 5, maxMs: 20 }, ...options });
  queues.push(q);
  return q;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tt-memory-queue-'));
  deadLetterPath = join(dir, 'dead-letter', 'events.jsonl');
});

afterEach(() => {
  for (const q of queues.splice(0)) q.stop();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('MemoryQueue', () => {
  it('delivers a full batch at once, without waiting', async () => {
    const { batches, consumer } = recorder();
    const q = queue({ consumer, batchSize: 10, maxWaitMs: 10_000 });
    const started = Date.now();
    await q.sendBatch(range(10));
    await q.drain();
    expect(batches.map((b) => b.messages)).toEqual([range(10)]);
    expect(batches[0]!.at - started).toBeLessThan(1_000);
  });

  it('splits what is waiting into batches of at most batchSize, in send order', async () => {
    const { batches, consumer } = recorder();
    const q = queue({ consumer, batchSize: 4 });
    await q.sendBatch(range(10));
    await q.drain();
    expect(batches.map((b) => b.messages)).toEqual([range(4), range(4, 4), range(2, 8)]);
  });

  it('delivers a partial batch after maxWaitMs, collecting what arrived meanwhile', async () => {
    const { batches, consumer } = recorder();
    const q = queue({ consumer, batchSize: 100, maxWaitMs: 80 });
    const started = Date.now();
    await q.send(1);
    await q.send(2);
    await new Promise((r) => setTimeout(r, 20));
    await q.send(3);
    expect(batches).toHaveLength(0);
    await vi.waitFor(() => expect(batches).toHaveLength(1), { timeout: 2_000, interval: 5 });
    expect(batches[0]!.messages).toEqual([1, 2, 3]);
    expect(batches[0]!.at - started).toBeGreaterThanOrEqual(70);
  });

  it('holds what arrives during a delivery until its oldest message has waited maxWaitMs', async () => {
    const { batches, consumer } = recorder(async () => {
      await new Promise((r) => setTimeout(r, 30));
      return [];
    });
    const q = queue({ consumer, batchSize: 100, maxWaitMs: 150 });
    await q.send(1);
    await vi.waitFor(() => expect(batches).toHaveLength(1), { timeout: 2_000, interval: 5 });
    // Sent while the first batch is being consumed: it does not ride out on the heels of that batch.
    await q.send(2);
    await vi.waitFor(() => expect(batches).toHaveLength(2), { timeout: 2_000, interval: 5 });
    expect(batches[1]!.messages).toEqual([2]);
    expect(batches[1]!.at - batches[0]!.at).toBeGreaterThanOrEqual(140);
  });

  it('sends at once what has already waited maxWaitMs when the consumer frees up', async () => {
    // A fake clock: on a busy machine real timers fire late, and the gap measured below with them.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const { batches, consumer } = recorder(async (_, call) => {
        if (call === 1) await new Promise((r) => setTimeout(r, 120));
        return [];
      });
      const q = queue({ consumer, batchSize: 10, maxWaitMs: 50 });
      await q.send(1);
      await vi.advanceTimersByTimeAsync(50);
      expect(batches).toHaveLength(1);
      await q.send(2);
      await vi.advanceTimersByTimeAsync(120);
      // 2 waited 120 ms behind the first delivery, more than maxWaitMs: no second wait.
      expect(batches).toHaveLength(2);
      expect(batches[1]!.at - batches[0]!.at).toBe(120);
    } finally {
      vi.useRealTimers();
    }
  });

  it('works on up to `concurrency` batches at once, taking the next as soon as one settles', async () => {
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    let othersDone: () => void = () => {};
    const others = new Promise<void>((r) => (othersDone = r));
    const consumer: BatchConsumer<number> = async ([n]) => {
      most = Math.max(most, ++inFlight);
      // The first message finishes only once the other four have: a queue that made them wait for it never drains.
      if (n === 0) await others;
      else await new Promise((r) => setTimeout(r, 10));
      order.push(n as number);
      if (order.length === 4) othersDone();
      inFlight--;
      return [];
    };
    const q = queue({ consumer, batchSize: 1, concurrency: 2 });
    await q.sendBatch(range(5));
    await q.drain();
    expect(most).toBe(2);
    expect(order).toEqual([1, 2, 3, 4, 0]);
  });

  it('returns from send before the consumer runs', async () => {
    let release: () => void = () => {};
    const consumer: BatchConsumer<number> = () => new Promise((resolve) => (release = () => resolve([])));
    const q = queue({ consumer, batchSize: 1 });
    await q.send(1);
    await q.send(2);
    expect(q.depth()).toBe(2);
    release();
    await vi.waitFor(() => expect(q.depth()).toBe(1));
    release();
    await q.drain();
    expect(q.depth()).toBe(0);
  });

  it('keeps one batch in flight at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const consumer: BatchConsumer<number> = async () => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return [];
    };
    const q = queue({ consumer, batchSize: 3 });
    await Promise.all(range(30).map((i) => q.send(i)));
    await q.drain();
    expect(most).toBe(1);
  });

  it('retries only the failed indexes, with growing backoff', async () => {
    const random = vi.fn(() => 1);
    const { batches, consumer } = recorder((batch, call) => (call <= 2 ? batch.flatMap((m, i) => (m % 2 === 1 ? [i] : [])) : []));
    const q = queue({ consumer, batchSize: 4, backoff: { baseMs: 40, maxMs: 1_000 }, random });
    await q.sendBatch(range(4));
    await q.drain();
    expect(batches.map((b) => b.messages)).toEqual([range(4), [1, 3], [1, 3]]);
    // Full jitter draw (random = 1): 40 ms before the first retry, 80 ms before the second.
    expect(batches[1]!.at - batches[0]!.at).toBeGreaterThanOrEqual(35);
    expect(batches[2]!.at - batches[1]!.at).toBeGreaterThanOrEqual(75);
  });

  it('treats a consumer that throws as a batch where everything failed', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    let calls = 0;
    const seen: number[][] = [];
    const consumer: BatchConsumer<number> = async (messages) => {
      seen.push([...messages]);
      if (++calls === 1) throw new Error('store down');
      return [];
    };
    const q = queue({ consumer, batchSize: 5 });
    await q.sendBatch(range(3));
    await q.drain();
    expect(seen).toEqual([range(3), range(3)]);
    expect(errors).toHaveBeenCalled();
  });

  it('ignores indexes a consumer reports that are not in the batch', async () => {
    const { batches, consumer } = recorder((_, call) => (call === 1 ? [7, -1, 0.5] : []));
    const q = queue({ consumer, batchSize: 2 });
    await q.sendBatch([1, 2]);
    await q.drain();
    expect(batches).toHaveLength(1);
  });

  it('dead-letters a message after maxAttempts deliveries, as one JSON line', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { batches, consumer } = recorder((batch) => batch.flatMap((m, i) => (m === 2 ? [i] : [])));
    const q = queue({ consumer, batchSize: 10, maxAttempts: 3 });
    await q.sendBatch([1, 2, 3]);
    await q.drain();
    expect(batches.filter((b) => b.messages.includes(2))).toHaveLength(3);
    expect(readFileSync(deadLetterPath, 'utf8')).toBe('2\n');
    expect(q.deadLettered).toBe(1);
    expect(q.depth()).toBe(0);
  });

  it('logs only counts when the dead-letter file cannot be written: never a row’s path, metadata or visitor hash', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    // The dead-letter folder's place is taken by a file: the write fails.
    writeFileSync(join(dir, 'dead-letter'), '');
    const rows = [
      { site: 'a.example', path: '/account/jane-doe/settings', metadata: '{"email":"jane@example.com"}', visitor: 'f3a9c0ffee1d2e3f' },
      { site: 'a.example', path: '/private/report', metadata: null, visitor: '0badc0de5eed' },
    ];
    const q = new MemoryQueue<(typeof rows)[number]>({ log, consumer: async (batch) => range(batch.length), deadLetterPath, maxAttempts: 1 });
    await q.sendBatch(rows);
    await q.drain();
    q.stop();
    const failed = lines.filter((l) => l.includes('dead-letter write failed'));
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0]!)).toMatchObject({ count: 2, journaled: 0, error: expect.stringMatching(/^E[A-Z]+$/) });
    for (const line of lines) expect(line).not.toMatch(/jane|private|f3a9c0ffee1d2e3f|0badc0de5eed|a\.example/);
  });

  it('writes dead letters owner-only (folder 0700, file 0600) under a permissive umask', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const umask = process.umask(0o022);
    try {
      const q = queue({ consumer: recorder((batch) => range(batch.length)).consumer, maxAttempts: 1 });
      await q.sendBatch([1]);
      await q.drain();
    } finally {
      process.umask(umask);
    }
    expect([statSync(dirname(deadLetterPath)).mode & 0o777, statSync(deadLetterPath).mode & 0o777]).toEqual([0o700, 0o600]);
  });

  it('drains everything sent, waiting out backoffs, without waiting for batches to fill', async () => {
    const { batches, consumer } = recorder((batch, call) => (call === 1 ? range(batch.length) : []));
    const q = queue({ consumer, batchSize: 1_000, maxWaitMs: 60_000 });
    await q.sendBatch(range(25));
    await q.drain();
    expect(batches.flatMap((b) => b.messages).slice(-25).sort((a, b) => a - b)).toEqual(range(25));
    expect(q.depth()).toBe(0);
  });

  it('drains at once when empty', async () => {
    const q = queue({ consumer: recorder().consumer });
    await expect(q.drain()).resolves.toBeUndefined();
  });

  it('refuses sends beyond maxDepth, whole batches included, and accepts again once drained', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const consumer: BatchConsumer<number> = async () => {
      await gate;
      return [];
    };
    const q = queue({ consumer, batchSize: 2, maxDepth: 5 });
    await q.sendBatch(range(4));
    await expect(q.sendBatch([4, 5])).rejects.toBeInstanceOf(QueueFullError);
    await q.send(4);
    await expect(q.send(5)).rejects.toThrow(/queue full/);
    expect(q.depth()).toBe(5);
    release();
    await q.drain();
    await expect(q.send(6)).resolves.toBeUndefined();
  });

  it('refuses sends beyond maxBytes while under maxDepth, and frees the bytes of consumed and dead-lettered messages', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const row = (i: number) => ({ id: `row-${i}`, path: 'x'.repeat(10_000) });
    const size = approxBytes(row(0));
    const q = new MemoryQueue<ReturnType<typeof row>>({
      log,
      consumer: async (messages) => {
        await gate;
        // Odd ids fail on their one attempt and are dead-lettered.
        return messages.flatMap((m, i) => (Number(m.id.slice(4)) % 2 ? [i] : []));
      },
      batchSize: 10,
      maxAttempts: 1,
      deadLetterPath,
      maxBytes: 3 * size,
    });
    try {
      await q.sendBatch([row(0), row(1)]);
      await expect(q.sendBatch([row(2), row(3)])).rejects.toBeInstanceOf(QueueFullError);
      await q.send(row(2));
      await expect(q.send(row(3))).rejects.toThrow(/queue full/);
      expect([q.depth(), q.bytes()]).toEqual([3, 3 * size]);
      release();
      await q.drain();
      expect([q.depth(), q.bytes(), q.deadLettered]).toEqual([0, 0, 1]);
      await expect(q.sendBatch([row(4), row(5), row(6)])).resolves.toBeUndefined();
    } finally {
      q.stop();
    }
  });

  it('sizes a message by its string lengths, about two bytes a character', () => {
    const small = approxBytes({ id: 'a', path: '/' });
    expect(approxBytes({ id: 'a', path: '/'.repeat(10_001) }) - small).toBe(20_000);
    expect(approxBytes({ id: 'a', path: '/', n: 1, tags: ['x'] })).toBeGreaterThan(small);
  });

  it('counts messages with the sizeOf it is given against maxBytes', async () => {
    const q = new MemoryQueue<number>({ log, consumer: () => new Promise(() => {}), maxWaitMs: 60_000, maxBytes: 250, sizeOf: () => 100 });
    try {
      await q.sendBatch([1, 2]);
      await expect(q.send(3)).rejects.toBeInstanceOf(QueueFullError);
      expect(q.bytes()).toBe(200);
    } finally {
      q.stop();
    }
  });

  it('sizes an event row field by field as approxBytes sizes it by walking it', () => {
    const texts = Object.fromEntries(EVENT_ROW_COLUMNS.map((c, i) => [c, 'x'.repeat(i + 1)]));
    const full = { ...texts, ts: 1, unique: true, viewport_width: 1, viewport_height: 2, screen_width: 3, screen_height: 4, duration: 5, scrolled: 6, bot: false, https: true, imported: false } as unknown as EventRow;
    const sparse = Object.fromEntries(Object.entries(full).map(([k, v]) => [k, typeof v === 'string' && k !== 'site' ? null : v])) as unknown as EventRow;
    expect(eventRowBytes(full)).toBe(approxBytes(full));
    expect(eventRowBytes(sparse)).toBe(approxBytes(sparse));
  });

  it('replays dead letters: re-sends each line and empties the file', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let healthy = false;
    const { batches, consumer } = recorder((batch) => (healthy ? [] : range(batch.length)));
    const q = queue({ consumer, batchSize: 10, maxAttempts: 1 });
    await q.sendBatch([1, 2]);
    await q.drain();
    expect(readFileSync(deadLetterPath, 'utf8')).toBe('1\n2\n');
    healthy = true;
    expect(await q.replayDeadLetters()).toBe(2);
    await q.drain();
    expect(batches.at(-1)!.messages).toEqual([1, 2]);
    expect(existsSync(deadLetterPath)).toBe(false);
  });

  it('replays nothing without a file, and keeps lines it cannot parse', async () => {
    const { batches, consumer } = recorder();
    const q = queue({ consumer });
    expect(await q.replayDeadLetters()).toBe(0);
    expect(existsSync(deadLetterPath)).toBe(false);
    mkdirSync(dirname(deadLetterPath), { recursive: true });
    writeFileSync(deadLetterPath, '1\nnot json\n\n2\n');
    expect(await q.replayDeadLetters()).toBe(2);
    await q.drain();
    expect(batches.flatMap((b) => b.messages)).toEqual([1, 2]);
    expect(readFileSync(deadLetterPath, 'utf8')).toBe('not json\n');
  });

  it('stops delivering after stop, and refuses sends', async () => {
    const { batches, consumer } = recorder();
    const q = queue({ consumer, maxWaitMs: 20 });
    await q.send(1);
    q.stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(batches).toHaveLength(0);
    await expect(q.send(2)).rejects.toThrow(/stopped/);
  });
});

describe('backoffDelay', () => {
  const policy = { baseMs: 100, maxMs: 5_000 };

  it('doubles from the base per attempt, half of it jittered', () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(3, policy, () => 1)).toBe(400);
  });

  it('never exceeds the cap', () => {
    expect(backoffDelay(7, policy, () => 1)).toBe(5_000);
    expect(backoffDelay(30, policy, () => 0)).toBe(2_500);
  });
});
