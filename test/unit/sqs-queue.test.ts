import { SendMessageBatchCommand, SQSClient, type SendMessageBatchCommandInput } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsQueue, SqsSendError, chunkEntries } from '#adapters/sqs/sqs-queue.ts';

const QUEUE_URL = 'https://sqs.eu-central-1.amazonaws.com/123456789012/tt-events';
const sqs = mockClient(SQSClient);

afterEach(() => sqs.reset());

const newQueue = <T>() => new SqsQueue<T>(new SQSClient({ region: 'eu-central-1' }), QUEUE_URL, { backoff: { baseMs: 1, maxMs: 2 } });
const inputs = () => sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input as SendMessageBatchCommandInput);
const succeedAll = (input: SendMessageBatchCommandInput) => ({ Successful: (input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: '' })), Failed: [] });

describe('SqsQueue', () => {
  it('sends each message as one JSON body, in requests of at most 10', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(succeedAll);
    await newQueue<{ n: number }>().sendBatch(Array.from({ length: 23 }, (_, n) => ({ n })));
    const calls = inputs();
    expect(calls.map((c) => c.Entries?.length)).toEqual([10, 10, 3]);
    expect(calls.every((c) => c.QueueUrl === QUEUE_URL)).toBe(true);
    expect(calls.flatMap((c) => c.Entries!.map((e) => JSON.parse(e.MessageBody!).n))).toEqual(Array.from({ length: 23 }, (_, n) => n));
    expect(new Set(calls[0]!.Entries!.map((e) => e.Id)).size).toBe(10);
  });

  it('sends one message with send', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(succeedAll);
    await newQueue<string>().send('hello');
    expect(inputs()[0]!.Entries).toEqual([{ Id: '0', MessageBody: '"hello"' }]);
  });

  it('keeps every request within 256 KiB', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(succeedAll);
    const big = 'x'.repeat(100 * 1024);
    await newQueue<string>().sendBatch([big, big, big, 'small']);
    const sizes = inputs().map((c) => c.Entries!.reduce((n, e) => n + Buffer.byteLength(e.MessageBody!), 0));
    expect(sizes.every((s) => s <= 256 * 1024)).toBe(true);
    expect(inputs().map((c) => c.Entries!.length)).toEqual([2, 2]);
  });

  it('counts bytes, not characters, against the limit', () => {
    const entries = [{ bytes: 200_000 }, { bytes: 62_145 }, { bytes: 1 }];
    expect(chunkEntries(entries).map((c) => c.length)).toEqual([1, 2]);
  });

  it('refuses a message larger than 256 KiB without sending anything', async () => {
    await expect(newQueue<string>().sendBatch(['ü'.repeat(140 * 1024)])).rejects.toBeInstanceOf(SqsSendError);
    expect(inputs()).toHaveLength(0);
  });

  it('resends only the entries SQS failed on its side, then succeeds', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .callsFakeOnce(() => ({
        Successful: [{ Id: '0', MessageId: 'a', MD5OfMessageBody: '' }],
        Failed: [
          { Id: '1', Code: 'InternalError', SenderFault: false, Message: 'try again' },
          { Id: '2', Code: 'ServiceUnavailable', SenderFault: false },
        ],
      }))
      .callsFake(succeedAll);
    await newQueue<string>().sendBatch(['a', 'b', 'c']);
    expect(inputs().map((c) => c.Entries!.map((e) => e.MessageBody))).toEqual([['"a"', '"b"', '"c"'], ['"b"', '"c"']]);
  });

  it('throws when entries still fail after three attempts', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
      Successful: [],
      Failed: (input.Entries ?? []).map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
    }));
    const error = await newQueue<string>().sendBatch(['a', 'b']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqsSendError);
    expect((error as SqsSendError).failures).toHaveLength(2);
    expect(inputs()).toHaveLength(3);
  });

  it('does not resend entries SQS blames on the sender', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(() => ({
      Successful: [{ Id: '0', MessageId: 'a', MD5OfMessageBody: '' }],
      Failed: [{ Id: '1', Code: 'InvalidMessageContents', SenderFault: true }],
    }));
    await expect(newQueue<string>().sendBatch(['a', 'b'])).rejects.toThrow(/InvalidMessageContents/);
    expect(inputs()).toHaveLength(1);
  });

  it('passes on an error of the request itself', async () => {
    sqs.on(SendMessageBatchCommand).rejects(new Error('network down'));
    await expect(newQueue<string>().send('a')).rejects.toThrow('network down');
  });
});
