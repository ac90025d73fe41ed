import { appendFileSync, constants, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReceiptJournal } from '#adapters/receipt-journal/receipt-journal.ts';
import { MemoryQueue } from '#adapters/memory-queue/memory-queue.ts';
import { EVENT_ROW_COLUMNS, eventRowCodec } from '#adapters/receipt-journal/event-row-codec.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import { log } from '#platform/log.ts';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'tt-journal-')), 'journal');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const segmentFiles = () => readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
const journaledLines = () => segmentFiles().flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean));

describe('receipt journal', () => {
  it('has every appended message on disk when append resolves', async () => {
    const { journal } = await ReceiptJournal.open<{ n: number }>(dir, { log });
    await journal.append([{ n: 1 }, { n: 2 }]);
    expect(journaledLines()).toEqual(['{"n":1}', '{"n":2}']);
    expect(journal.outstanding()).toBe(2);
  });

  it('commits everything appended in one turn of the event loop with one synchronized write', async () => {
    const { journal } = await ReceiptJournal.open<number>(dir, { log });
    await journal.append([0]); // opens the segment
    const handles = Object.getPrototypeOf(await openHandleOf(dir));
    const writes = vi.spyOn(handles, 'write');
    const syncs = vi.spyOn(handles, 'datasync');
    await Promise.all(Array.from({ length: 200 }, (_, i) => journal.append([i + 1])));
    expect([writes.mock.calls.length, syncs.mock.calls.length]).toEqual([1, 0]);
    expect(journaledLines()).toHaveLength(201);
    // O_DSYNC: each write returns once its data is on disk, as a write + fdatasync would.
    expect(openFlags(join(dir, segmentFiles()[0] as string)) & constants.O_DSYNC).toBe(constants.O_DSYNC);
    vi.restoreAllMocks();
  });

  it('hands back what an earlier run left unreleased, oldest first, and skips a torn last line', async () => {
    const first = await ReceiptJournal.open<number>(dir, { log, segmentMs: 0 });
    const a = await first.journal.append([1, 2]);
    const b = await first.journal.append([3]);
    expect(b).toBeGreaterThan(a);
    first.journal.release(a, 2);
    // The process dies mid-write: half a line, never acknowledged.
    appendFileSync(join(dir, segmentFiles().at(-1) as string), '{"torn":');
    const again = await ReceiptJournal.open<number>(dir, { log });
    expect(again.recovered.map((r) => r.messages)).toEqual([[3]]);
  });

  it('deletes a segment once it is closed and all its messages are released', async () => {
    const { journal } = await ReceiptJournal.open<number>(dir, { log, segmentMs: 0 });
    const s1 = await journal.append([1, 2]);
    const s2 = await journal.append([3]); // closes s1
    expect(segmentFiles()).toHaveLength(2);
    journal.release(s1, 1);
    expect(segmentFiles()).toHaveLength(2);
    journal.release(s1, 1);
    await vi.waitFor(() => expect(segmentFiles()).toHaveLength(1));
    // The open segment goes as soon as it is all released (an idle server has nothing to redo).
    journal.release(s2, 1);
    await vi.waitFor(() => expect(segmentFiles()).toHaveLength(0));
  });

  it('creates its folder and segments owner-only', async () => {
    const { journal } = await ReceiptJournal.open<number>(dir, { log });
    await journal.append([1]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, segmentFiles()[0] as string)).mode & 0o777).toBe(0o600);
  });
});

/** A row whose every field holds a value no other field holds, so a swapped column shows. */
const distinctRow: EventRow = {
  site: 'codec.example', registration: 'reg-1', ts: 1_700_000_000_123, kind: 'append', id: 'id-1', original_id: 'orig-1', event: 'signup',
  visitor: 'v'.repeat(32), unique: true, page_id: 'page-1', session_id: 'sess-1', path: '/a "quoted" \\ path\n', query: '?q=1', referrer: 'https://ref.example/x',
  referrer_host: 'ref.example', utm_source: 'us', utm_medium: 'um', utm_campaign: 'uc', utm_term: 'ut', utm_content: 'uco', source: 'src', country: 'DE',
  browser: 'Chrome', os: 'Windows', device: 'desktop', language: 'de-DE', viewport_width: 1, viewport_height: 2, screen_width: 3, screen_height: 4,
  duration: 5, scrolled: 6, bot: false, metadata: '{"k":"ü"}', https: null, imported: false, source_id: 'sid',
};

describe('event row codec', () => {
  it('writes a row as its values in column order and reads it back whole', () => {
    const line = eventRowCodec.encode(distinctRow);
    expect(JSON.parse(line)).toEqual([1, ...EVENT_ROW_COLUMNS.map((c) => distinctRow[c])]);
    expect(eventRowCodec.decode(JSON.parse(line))).toEqual(distinctRow);
    expect(Object.keys(eventRowCodec.decode(JSON.parse(line))).sort()).toEqual(Object.keys(distinctRow).sort());
  });

  it('reads a row an earlier version journaled as a JSON object', () => {
    expect(eventRowCodec.decode(JSON.parse(JSON.stringify(distinctRow)))).toEqual(distinctRow);
  });

  it('hands back journaled rows of either form after a restart', async () => {
    const first = await ReceiptJournal.open<EventRow>(dir, { log, codec: eventRowCodec });
    await first.journal.append([distinctRow]);
    await first.journal.close();
    appendFileSync(join(dir, segmentFiles()[0] as string), `${JSON.stringify({ ...distinctRow, id: 'older' })}\n`);
    const { recovered } = await ReceiptJournal.open<EventRow>(dir, { log, codec: eventRowCodec });
    expect(recovered.flatMap((r) => r.messages)).toEqual([distinctRow, { ...distinctRow, id: 'older' }]);
  });
});

describe('memory queue with a journal', () => {
  it('answers a send only after the message is journaled, and empties the journal as batches are consumed', async () => {
    const { journal } = await ReceiptJournal.open<number>(dir, { log });
    const consumed: number[] = [];
    const q = new MemoryQueue<number>({ log, journal, consumer: async (batch) => (consumed.push(...batch), []), maxWaitMs: 1 });
    await q.send(7);
    expect(journaledLines()).toContain('7');
    await q.drain();
    expect(consumed).toEqual([7]);
    expect(journal.outstanding()).toBe(0);
    await vi.waitFor(() => expect(segmentFiles()).toHaveLength(0));
    q.stop();
  });

  it('refuses a send at its bound before journaling anything', async () => {
    const { journal } = await ReceiptJournal.open<number>(dir, { log });
    const q = new MemoryQueue<number>({ log, journal, consumer: () => new Promise(() => {}), maxDepth: 1, maxWaitMs: 60_000 });
    await q.send(1);
    await expect(q.send(2)).rejects.toThrow('queue full');
    expect(journaledLines()).toEqual(['1']);
    q.stop();
  });

  it('delivers restored messages before messages sent after them', async () => {
    const first = await ReceiptJournal.open<number>(dir, { log });
    await first.journal.append([1, 2]);
    const { journal, recovered } = await ReceiptJournal.open<number>(dir, { log });
    const consumed: number[] = [];
    const q = new MemoryQueue<number>({ log, journal, consumer: async (batch) => (consumed.push(...batch), []), maxWaitMs: 1 });
    expect(q.restore(recovered)).toBe(2);
    await q.send(3);
    await q.drain();
    expect(consumed).toEqual([1, 2, 3]);
    await vi.waitFor(() => expect(segmentFiles()).toHaveLength(0));
    q.stop();
  });

  it('lets go of a dead-lettered message only once the dead-letter file holds it', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const { journal } = await ReceiptJournal.open<number>(dir, { log });
    const deadLetterPath = join(dir, '..', 'dead', 'x.jsonl');
    const q = new MemoryQueue<number>({ log, journal, consumer: async (b) => b.map((_, i) => i), maxAttempts: 1, deadLetterPath, maxWaitMs: 1 });
    await q.send(5);
    await q.drain();
    expect(readFileSync(deadLetterPath, 'utf8')).toBe('5\n');
    expect(journal.outstanding()).toBe(0);
    q.stop();
    vi.restoreAllMocks();
  });
});

/** The open flags of this process's descriptor for `path` (Linux: /proc/self/fdinfo). */
function openFlags(path: string): number {
  for (const fd of readdirSync('/proc/self/fd')) {
    let target = '';
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target === path) return parseInt(/flags:\s+([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '0', 8);
  }
  throw new Error(`${path} is not open`);
}

/** The FileHandle class, to spy on its write and datasync. */
async function openHandleOf(path: string) {
  const { open } = await import('node:fs/promises');
  const handle = await open(join(path, segmentFiles()[0] as string), 'r');
  await handle.close();
  return handle;
}
