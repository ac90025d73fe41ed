import { GetQueueAttributesCommand, ListMessageMoveTasksCommand, SQSClient, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { redriveStatus, startRedrive } from '#adapters/sqs/redrive.ts';

const DLQ_URL = 'https://sqs.eu-central-1.amazonaws.com/123456789012/tt-events-dlq';
const DLQ_ARN = 'arn:aws:sqs:eu-central-1:123456789012:tt-events-dlq';
const sqs = mockClient(SQSClient);
afterEach(() => sqs.reset());
const client = () => new SQSClient({ region: 'eu-central-1' });

describe('SQS dead-letter redrive', () => {
  it('starts a message move task from the queue ARN back to its source queue', async () => {
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { QueueArn: DLQ_ARN, ApproximateNumberOfMessages: '42' } });
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'handle-1' });
    expect(await startRedrive(client(), DLQ_URL)).toEqual({ queueUrl: DLQ_URL, queueArn: DLQ_ARN, messages: 42, taskHandle: 'handle-1' });
    expect(sqs.commandCalls(GetQueueAttributesCommand)[0]!.args[0].input).toMatchObject({ QueueUrl: DLQ_URL });
    const start = sqs.commandCalls(StartMessageMoveTaskCommand)[0]!.args[0].input;
    // No DestinationArn: SQS returns each message to the queue it came from.
    expect(start).toEqual({ SourceArn: DLQ_ARN, MaxNumberOfMessagesPerSecond: undefined });
  });

  it('fails clearly when SQS reports no ARN or starts no task', async () => {
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: {} });
    await expect(startRedrive(client(), DLQ_URL)).rejects.toThrow(`no ARN for ${DLQ_URL}`);
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { QueueArn: DLQ_ARN } });
    sqs.on(StartMessageMoveTaskCommand).resolves({});
    await expect(startRedrive(client(), DLQ_URL)).rejects.toThrow('started no move task');
  });

  it('reports the newest move task of a queue', async () => {
    sqs.on(ListMessageMoveTasksCommand).resolves({ Results: [{ Status: 'RUNNING', ApproximateNumberOfMessagesMoved: 10, ApproximateNumberOfMessagesToMove: 42 }] });
    expect(await redriveStatus(client(), DLQ_ARN)).toEqual({ status: 'RUNNING', moved: 10, toMove: 42, failureReason: null });
    expect(sqs.commandCalls(ListMessageMoveTasksCommand)[0]!.args[0].input).toEqual({ SourceArn: DLQ_ARN, MaxResults: 1 });
    sqs.on(ListMessageMoveTasksCommand).resolves({ Results: [] });
    expect(await redriveStatus(client(), DLQ_ARN)).toBeNull();
  });
});
