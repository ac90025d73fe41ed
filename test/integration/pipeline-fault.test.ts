/**
 * The ingestion pipeline under faults: MemoryQueue → event writer → a real
 * DuckDB store. Nothing accepted is lost while the store is down, and
 * redeliveries never store a row twice.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { MemoryQueue } from '#adapters/memory-queue/memory-queue.ts';
import { ReceiptJournal } from '#adapters/receipt-journal/receipt-journal.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import { createEventWriter } from '#workers/event-writer.ts';
import { eventRow } from '../contract/event-store.contract.ts';
import { log } from '#platform/log.ts';

/** Wraps a real store; `fault` decides, per call, whether the call fails before or after writing. */
function faultyStore(inner: EventStore, fault: (call: number) => 'before' | 'after' | null) {
  const stats = { calls: 0, failed: 0 };
  const store: EventStore = {
    saveEvents: async (rows) => {
      const mode = fault(++stats.calls);
      if (mode === 'before') {
        stats.failed++;
        throw new Error('event store unavailable');
      }
      await inner.saveEvents(rows);
      if (mode === 'after') {
        stats.failed++;
        throw new Error('connection lost after commit');
      }
    },
    close: () => inner.close(),
  };
  return { store, stats };
}

async function stored(store: DuckDbEventStore, site: string): Promise<{ rows: number; distinct: number }> {
  const [r] = await store.query<{ rows: bigint; distinct: bigint }>(
    'SELECT count(*) AS rows, count(DISTINCT (id, ts)) AS distinct FROM events WHERE site = $site',
    { site },
  );
  return { rows: Number(r?.rows), distinct: Number(r?.distinct) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let deadLetterPath: string;
let events: DuckDbEventStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tt-pipeline-'));
  deadLetterPath = join(dir, 'dead-letter', 'events.jsonl');
  events = await DuckDbEventStore.open(join(dir, 'events.duckdb'), { log });
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(async () => {
  await events.close();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

describe('ingestion pipeline', () => {
  it('stores every row exactly once after a 1.5 s store outage, dead-lettering nothing', async () => {
    const downUntil = Date.now() + 1_500;
    const { store, stats } = faultyStore(events, () => (Date.now() < downUntil ? 'before' : null));
    // Default batching and backoff (100 ms doubling, 8 attempts): the policy under test.
    const queue = new MemoryQueue<EventRow>({ log, consumer: createEventWriter(store), deadLetterPath });
    const site = 'outage.example';
    const producers = 20;
    const perProducer = 1_000;

    // Twenty producers, each sending its rows in bursts spread over the outage.
    await Promise.all(
      Array.from({ length: producers }, async (_, p) => {
        for (let burst = 0; burst < 20; burst++) {
          const sends = Array.from({ length: perProducer / 20 }, () => queue.send(eventRow({ site, ts: Date.now(), id: `${p}-${randomUUID()}` })));
          await Promise.all(sends);
          await sleep(Math.random() * 100);
        }
      }),
    );
    await queue.drain();
    queue.stop();

    expect(stats.failed).toBeGreaterThan(0);
    expect(await stored(events, site)).toEqual({ rows: producers * perProducer, distinct: producers * perProducer });
    expect(existsSync(deadLetterPath) ? readFileSync(deadLetterPath, 'utf8') : '').toBe('');
    expect(queue.deadLettered).toBe(0);
    expect(queue.depth()).toBe(0);
  }, 60_000);

  it('stores a batch delivered twice once', async () => {
    const writer = createEventWriter(events);
    const batch = Array.from({ length: 300 }, () => eventRow({ site: 'twice.example' }));
    expect(await writer(batch)).toEqual([]);
    expect(await writer(batch)).toEqual([]);
    expect(await stored(events, 'twice.example')).toEqual({ rows: 300, distinct: 300 });
  });

  it('stores a batch once when the acknowledgement of its write is lost and the writer writes its halves again', async () => {
    const { store, stats } = faultyStore(events, (call) => (call === 1 ? 'after' : null));
    const queue = new MemoryQueue<EventRow>({ log, consumer: createEventWriter(store), deadLetterPath, backoff: { baseMs: 10, maxMs: 50 } });
    await queue.sendBatch(Array.from({ length: 120 }, () => eventRow({ site: 'lost-ack.example' })));
    await queue.drain();
    queue.stop();
    // The whole batch (stored, then failed), then each half.
    expect(stats.calls).toBe(3);
    expect(await stored(events, 'lost-ack.example')).toEqual({ rows: 120, distinct: 120 });
  });

  it('dead-letters rows when the store stays down, and replays them once it is back', async () => {
    let down = true;
    const { store } = faultyStore(events, () => (down ? 'before' : null));
    const queue = new MemoryQueue<EventRow>({ log, consumer: createEventWriter(store), deadLetterPath, maxAttempts: 3, backoff: { baseMs: 5, maxMs: 20 } });
    await queue.sendBatch(Array.from({ length: 50 }, () => eventRow({ site: 'dead.example' })));
    await queue.drain();
    expect(readFileSync(deadLetterPath, 'utf8').trim().split('\n')).toHaveLength(50);
    down = false;
    expect(await queue.replayDeadLetters()).toBe(50);
    await queue.drain();
    queue.stop();
    expect(await stored(events, 'dead.example')).toEqual({ rows: 50, distinct: 50 });
    expect(existsSync(deadLetterPath)).toBe(false);
  });

  it('replays dead letters on its own once the store has gone a replay interval without a failure, storing each row once', async () => {
    let down = true;
    const { store } = faultyStore(events, () => (down ? 'before' : null));
    const { journal } = await ReceiptJournal.open<EventRow>(join(dir, 'journal'), { log });
    const queue = new MemoryQueue<EventRow>({ log, consumer: createEventWriter(store), deadLetterPath, journal, maxAttempts: 2, backoff: { baseMs: 5, maxMs: 20 } });
    const stopReplay = queue.replayDeadLettersEvery(200);
    await queue.sendBatch(Array.from({ length: 40 }, () => eventRow({ site: 'auto-replay.example' })));
    await queue.drain();
    expect(readFileSync(deadLetterPath, 'utf8').trim().split('\n')).toHaveLength(40);
    down = false;
    await vi.waitFor(async () => expect(await stored(events, 'auto-replay.example')).toEqual({ rows: 40, distinct: 40 }), { timeout: 5_000, interval: 50 });
    await vi.waitFor(() => expect(existsSync(deadLetterPath)).toBe(false));
    stopReplay();
    await queue.drain();
    queue.stop();
    await journal.close();
    expect(journal.outstanding()).toBe(0);
  });

  it('stores a dead letter once when a replay cut short by a crash is taken up again', async () => {
    let down = true;
    const { store } = faultyStore(events, () => (down ? 'before' : null));
    const queue = new MemoryQueue<EventRow>({ log, consumer: createEventWriter(store), deadLetterPath, maxAttempts: 1 });
    await queue.sendBatch(Array.from({ length: 30 }, () => eventRow({ site: 'replay-twice.example' })));
    await queue.drain();
    const lines = readFileSync(deadLetterPath, 'utf8');
    down = false;
    expect(await queue.replayDeadLetters()).toBe(30);
    await queue.drain();
    // The crash: the rows were sent, but the file set aside for the replay was never deleted.
    writeFileSync(`${deadLetterPath}.replaying`, lines);
    expect(await queue.replayDeadLetters()).toBe(30);
    await queue.drain();
    queue.stop();
    expect(await stored(events, 'replay-twice.example')).toEqual({ rows: 30, distinct: 30 });
    expect(existsSync(`${deadLetterPath}.replaying`)).toBe(false);
  });
});
