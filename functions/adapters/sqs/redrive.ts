/**
 * Redrive of an SQS dead-letter queue back to the queue(s) it came from,
 * with SQS's own message move task (StartMessageMoveTask): the messages are
 * moved by SQS, not read and re-sent by this process, so nothing is lost if
 * the operator's shell goes away half-way.
 */
import { GetQueueAttributesCommand, ListMessageMoveTasksCommand, StartMessageMoveTaskCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface RedriveStarted {
  queueUrl: string;
  queueArn: string;
  /** Messages in the dead-letter queue when the move started (SQS's approximate count). */
  messages: number;
  taskHandle: string;
}

export interface RedriveStatus {
  status: string;
  moved: number;
  toMove: number | null;
  failureReason: string | null;
}

/** Starts moving every message of the dead-letter queue at `queueUrl` back to its source queue. */
export async function startRedrive(sqs: SQSClient, queueUrl: string, maxPerSecond?: number): Promise<RedriveStarted> {
  const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn', 'ApproximateNumberOfMessages'] }));
  const queueArn = attributes.Attributes?.QueueArn;
  if (!queueArn) throw new Error(`no ARN for ${queueUrl}`);
  // Without a destination SQS moves each message back to the queue it was dead-lettered from.
  const task = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: queueArn, MaxNumberOfMessagesPerSecond: maxPerSecond }));
  if (!task.TaskHandle) throw new Error(`SQS started no move task for ${queueArn}`);
  return { queueUrl, queueArn, messages: Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0), taskHandle: task.TaskHandle };
}

/** The newest move task of a dead-letter queue. */
export async function redriveStatus(sqs: SQSClient, queueArn: string): Promise<RedriveStatus | null> {
  const list = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: queueArn, MaxResults: 1 }));
  const task = list.Results?.[0];
  if (!task) return null;
  return {
    status: task.Status ?? 'UNKNOWN',
    moved: task.ApproximateNumberOfMessagesMoved ?? 0,
    toMove: task.ApproximateNumberOfMessagesToMove ?? null,
    failureReason: task.FailureReason ?? null,
  };
}
