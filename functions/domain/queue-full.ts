/**
 * A queue's refusal (the Queue port's `send`), in the domain because the
 * collector decides on it: a full queue is the `queue_full` drop, a 503.
 */
/** `send` refused because the queue is at its bound (messages or bytes): the message was not taken. */
export class QueueFullError extends Error {
  constructor(depth: number, bytes: number) {
    super(`queue full: ${depth} messages waiting (about ${bytes} bytes)`);
    this.name = 'QueueFullError';
  }
}
