import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEventWriter, createSqsEventWriterHandler, DOWN_AFTER, parseRecord } from '#workers/event-writer.ts';
import type { EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import { eventRow } from '../contract/event-store.contract.ts';
import { sqsEvent } from '../support/lambda-events.ts';

/** One message of the batch: `sqsEvent(record('m1', body), …)`. */
const record = (messageId: string, body: string) => ({ messageId, body });

/** An in-memory store that fails the batches `fail` picks. */
function fakeStore(fail: (rows: readonly EventRow[]) => boolean = () => false) {
  const calls: EventRow[][] = [];
  const store: EventStore = {
    saveEvents: async (rows) => {
      calls.push([...rows]);
      if (fail(rows)) throw new Error('store down');
    },
    close: async () => {},
  };
  return { store, calls };
}

beforeEach(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

describe('parseRecord', () => {
  it('reads one row or an array of rows', () => {
    const row = eventRow();
    expect(parseRecord(JSON.stringify(row))).toEqual([row]);
    expect(parseRecord(JSON.stringify([row, row]))).toEqual([row, row]);
  });

  it('refuses bodies that are not rows', () => {
    for (const body of ['not json', '{}', '[]', 'null', '42', JSON.stringify([eventRow(), { site: 'x' }]), JSON.stringify({ ...eventRow(), kind: 'click' }), JSON.stringify({ ...eventRow(), ts: '1' })]) {
      expect(parseRecord(body)).toBeNull();
    }
  });
});

describe('createSqsEventWriterHandler', () => {
  it('writes every row of the batch with one saveEvents and reports no failures', async () => {
    const { store, calls } = fakeStore();
    const [a, b, c] = [eventRow(), eventRow(), eventRow()];
    const result = await createSqsEventWriterHandler(store)(sqsEvent(record('m1', JSON.stringify(a)), record('m2', JSON.stringify([b, c]))));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual([[a, b, c]]);
  });

  it('drops malformed bodies, counting them, without failing them (they would fail forever)', async () => {
    const { store, calls } = fakeStore();
    const row = eventRow();
    const result = await createSqsEventWriterHandler(store)(sqsEvent(record('bad', '{oops'), record('ok', JSON.stringify(row))));
    expect(result.batchItemFailures).toEqual([]);
    expect(calls).toEqual([[row]]);
    const summary = vi.mocked(console.log).mock.calls.map((c) => JSON.parse(String(c[0]))).find((l) => l.msg === 'event writer batch');
    expect(summary).toMatchObject({ records: 2, rows: 1, malformed: 1, failed: 0 });
    expect(vi.mocked(console.error).mock.calls.some((c) => String(c[0]).includes('"reason":"malformed"'))).toBe(true);
  });

  it('reports only the records whose rows cannot be stored', async () => {
    const poison = eventRow({ site: 'poison.example' });
    const { store } = fakeStore((rows) => rows.some((r) => r.site === 'poison.example'));
    const result = await createSqsEventWriterHandler(store)(
      sqsEvent(record('m1', JSON.stringify(eventRow())), record('m2', JSON.stringify(poison)), record('m3', JSON.stringify(eventRow()))),
    );
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
  });

  it('reports every record when the store is down, after about log2(records) + 2 DOWN_AFTER writes, not one per record', async () => {
    const { store, calls } = fakeStore(() => true);
    const records = Array.from({ length: 64 }, (_, i) => record(`m${i}`, JSON.stringify(eventRow())));
    const result = await createSqsEventWriterHandler(store)(sqsEvent(...records));
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(records.map((r) => r.messageId));
    expect(calls.length).toBeLessThanOrEqual(Math.log2(64) + 1 + 2 * DOWN_AFTER);
  });

  it('answers an empty batch, or one with only malformed bodies, without calling the store', async () => {
    const { store, calls } = fakeStore();
    expect(await createSqsEventWriterHandler(store)(sqsEvent())).toEqual({ batchItemFailures: [] });
    expect(await createSqsEventWriterHandler(store)(sqsEvent(record('x', '')))).toEqual({ batchItemFailures: [] });
    expect(calls).toEqual([]);
  });
});

describe('createEventWriter (the in-process queue)', () => {
  const rows = (n: number) => Array.from({ length: n }, (_, i) => eventRow({ id: `row-${i}` }));

  it('writes the whole batch with one saveEvents', async () => {
    const { store, calls } = fakeStore();
    expect(await createEventWriter(store)(rows(1000))).toEqual([]);
    expect(calls.map((c) => c.length)).toEqual([1000]);
  });

  it('stores every row but a poisoned one, which alone comes back failed, in about log2(batch) writes', async () => {
    const { store, calls } = fakeStore((batch) => batch.some((r) => r.id === 'row-700'));
    const batch = rows(1024);
    expect(await createEventWriter(store)(batch)).toEqual([700]);
    const stored = calls.filter((c) => !c.some((r) => r.id === 'row-700')).flat();
    expect(stored.map((r) => r.id).sort()).toEqual(batch.filter((r) => r.id !== 'row-700').map((r) => r.id).sort());
    expect(calls.length).toBeLessThanOrEqual(2 * (Math.log2(1024) + 1));
  });

  it('isolates two poisoned rows in one batch', async () => {
    const { store } = fakeStore((batch) => batch.some((r) => r.id === 'row-3' || r.id === 'row-4'));
    expect(await createEventWriter(store)(rows(16))).toEqual([3, 4]);
  });

  it('gives back every row of a batch when the store is down, after about log2(batch) + 2 DOWN_AFTER writes', async () => {
    const { store, calls } = fakeStore(() => true);
    const failed = await createEventWriter(store)(rows(50_000));
    expect(failed).toEqual(Array.from({ length: 50_000 }, (_, i) => i));
    expect(calls.length).toBeLessThanOrEqual(Math.ceil(Math.log2(50_000)) + 1 + 2 * DOWN_AFTER);
  });
});
