import {
  InternalServerException,
  RejectedRecordsException,
  ThrottlingException,
  TimestreamWriteClient,
  ValidationException,
  WriteRecordsCommand,
  type WriteRecordsCommandInput,
} from '@aws-sdk/client-timestream-write';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimestreamEventStore, toRecord } from '#adapters/timestream/timestream-event-store.ts';
import { eventRow, fullEventRow } from '../contract/event-store.contract.ts';
import { log } from '#platform/log.ts';

const timestream = mockClient(TimestreamWriteClient);
const newStore = () =>
  new TimestreamEventStore(new TimestreamWriteClient({ region: 'eu-west-1' }), 'tt', 'events', { log, backoff: { baseMs: 1, maxMs: 2 } });
const inputs = () => timestream.commandCalls(WriteRecordsCommand).map((c) => c.args[0].input as WriteRecordsCommandInput);
const rows = (n: number) => Array.from({ length: n }, (_, i) => eventRow({ site: 'ts.example', ts: 1_750_000_000_000 + i }));
const meta = { $metadata: {} };

beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  timestream.reset();
  vi.restoreAllMocks();
});

describe('TimestreamEventStore record shape', () => {
  it('writes one MULTI record per row: named by kind, in milliseconds, version 1', async () => {
    timestream.on(WriteRecordsCommand).resolves({ RecordsIngested: { Total: 1 } });
    const row = fullEventRow({ site: 'shape.example', ts: 1_750_000_000_123, id: 'row-1' });
    await newStore().saveEvents([row]);
    const [input] = inputs();
    expect(input).toMatchObject({
      DatabaseName: 'tt',
      TableName: 'events',
      CommonAttributes: { MeasureValueType: 'MULTI', TimeUnit: 'MILLISECONDS', Version: 1 },
    });
    expect(input!.Records).toHaveLength(1);
    const record = input!.Records![0]!;
    expect(record.MeasureName).toBe('event');
    expect(record.Time).toBe('1750000000123');
  });

  it('puts site, registration, id, kind and the low-cardinality labels in dimensions, the rest in typed measures', () => {
    const { record } = toRecord(fullEventRow({ site: 'shape.example', registration: 'reg-shape', id: 'row-1' }));
    expect(Object.fromEntries(record.Dimensions!.map((d) => [d.Name, d.Value]))).toEqual({
      site: 'shape.example',
      registration: 'reg-shape',
      id: 'row-1',
      kind: 'event',
      country: 'DE',
      browser: 'Firefox',
      os: 'Linux',
      device: 'desktop',
      language: 'de-DE',
    });
    const measures = Object.fromEntries(record.MeasureValues!.map((m) => [m.Name, [m.Type, m.Value]]));
    expect(measures).toMatchObject({
      path: ['VARCHAR', expect.stringMatching(/^\/blog\//)],
      visitor: ['VARCHAR', 'a'.repeat(64)],
      metadata: ['VARCHAR', '{"plan":"pro","seats":3}'],
      viewport_width: ['BIGINT', '1280'],
      scrolled: ['BIGINT', '75'],
      duration: ['DOUBLE', '12.5'],
      unique: ['BOOLEAN', 'true'],
      bot: ['BOOLEAN', 'false'],
      https: ['BOOLEAN', 'true'],
      imported: ['BOOLEAN', 'false'],
    });
    expect(measures).not.toHaveProperty('site');
  });

  it('omits nulls (and empty strings) from dimensions and measures', () => {
    const { record } = toRecord(eventRow({ site: 's.example', registration: '', id: 'x', path: '' }));
    expect(record.Dimensions!.map((d) => d.Name)).toEqual(['site', 'id', 'kind']);
    expect(record.MeasureValues!.map((m) => m.Name).sort()).toEqual(['bot', 'imported']);
  });

  it('cuts long text, metadata first, so a record stays within 2 KB', () => {
    const long = eventRow({ metadata: JSON.stringify({ note: 'm'.repeat(4_000) }), path: `/${'p'.repeat(2_000)}`, referrer: `https://r.example/${'r'.repeat(1_500)}` });
    const { record, trimmed } = toRecord(long);
    expect(trimmed).toBe(true);
    const bytes = [...record.Dimensions!, ...record.MeasureValues!].reduce((n, x) => n + Buffer.byteLength(`${x.Name}${x.Value}`), 0);
    expect(bytes).toBeLessThanOrEqual(2_048);
    expect(toRecord(eventRow({ path: '/short' })).trimmed).toBe(false);
  });
});

describe('TimestreamEventStore.saveEvents', () => {
  it('writes in requests of at most 100 records, de-duplicating the batch first', async () => {
    timestream.on(WriteRecordsCommand).resolves({});
    const batch = rows(250);
    const store = newStore();
    await store.saveEvents([...batch, batch[0]!, batch[1]!]);
    expect(inputs().map((i) => i.Records!.length)).toEqual([100, 100, 50]);
    expect(store.stats.written).toBe(250);
  });

  it('counts records rejected for an existing version as stored, and drops others with their reason', async () => {
    timestream.on(WriteRecordsCommand).rejects(
      new RejectedRecordsException({
        ...meta,
        message: 'One or more records have been rejected.',
        RejectedRecords: [
          { RecordIndex: 0, Reason: 'A record with the same dimensions, timestamp and measure name already exists.', ExistingVersion: 1 },
          { RecordIndex: 2, Reason: 'The record timestamp is outside the time range of the data ingestion window.' },
          { RecordIndex: 3, Reason: 'The record timestamp is outside the time range of the data ingestion window.' },
        ],
      }),
    );
    const store = newStore();
    await expect(store.saveEvents(rows(5))).resolves.toBeUndefined();
    expect(inputs()).toHaveLength(1);
    expect(store.stats).toMatchObject({
      written: 2,
      duplicates: 1,
      rejected: { 'The record timestamp is outside the time range of the data ingestion window.': 2 },
    });
    expect(vi.mocked(console.error).mock.calls.some((c) => String(c[0]).includes('"dropped":2'))).toBe(true);
  });

  it('retries a throttled request with backoff and then succeeds', async () => {
    timestream
      .on(WriteRecordsCommand)
      .rejectsOnce(new ThrottlingException({ ...meta, message: 'slow down', Message: 'slow down' }))
      .rejectsOnce(new InternalServerException({ ...meta, message: 'oops', Message: 'oops' }))
      .resolves({});
    const store = newStore();
    await store.saveEvents(rows(3));
    expect(inputs()).toHaveLength(3);
    expect(store.stats.written).toBe(3);
  });

  it('retries a 5xx response', async () => {
    const unavailable = Object.assign(new Error('Service Unavailable'), { name: 'ServiceUnavailable', $metadata: { httpStatusCode: 503 } });
    timestream.on(WriteRecordsCommand).rejectsOnce(unavailable).resolves({});
    await newStore().saveEvents(rows(1));
    expect(inputs()).toHaveLength(2);
  });

  it('throws after three throttled attempts', async () => {
    timestream.on(WriteRecordsCommand).rejects(new ThrottlingException({ ...meta, message: 'slow down', Message: 'slow down' }));
    await expect(newStore().saveEvents(rows(2))).rejects.toBeInstanceOf(ThrottlingException);
    expect(inputs()).toHaveLength(3);
  });

  it('throws at once on an error retrying cannot fix', async () => {
    timestream.on(WriteRecordsCommand).rejects(new ValidationException({ ...meta, message: 'bad table', Message: 'bad table' }));
    await expect(newStore().saveEvents(rows(2))).rejects.toBeInstanceOf(ValidationException);
    expect(inputs()).toHaveLength(1);
  });

  it('sends nothing for an empty batch', async () => {
    await newStore().saveEvents([]);
    expect(inputs()).toHaveLength(0);
  });
});
