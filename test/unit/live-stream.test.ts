/**
 * The live stream's pure rules (functions/domain/live/live-stream.ts) and the
 * response-streaming Lambda entry (functions/aws/streaming.ts) over a stand-in
 * for the Node.js runtime's `awslambda` global, which exists only in Lambda.
 */
import { PassThrough, type Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isTicketFormat, minuteBoundaries, newLiveTicket, perMinute, SSE_HEARTBEAT, SSE_RETRY, sseEvent, ticketHash } from '#domain/live/live-stream.ts';
import { streamingHandler, type StreamingRuntime } from '#aws/streaming.ts';
import { createGroupHandler, json } from '#http/api.ts';
import { functionUrlEvent } from '../support/lambda-events.ts';

describe('the per-minute history', () => {
  it('ends with the current minute, its last boundary just past now', () => {
    const now = Date.UTC(2026, 10, 29, 6, 30, 42, 500);
    const b = minuteBoundaries(now, 3);
    expect(b).toEqual([Date.UTC(2026, 10, 29, 6, 28), Date.UTC(2026, 10, 29, 6, 29), Date.UTC(2026, 10, 29, 6, 30), now + 1]);
  });

  it('has one entry per minute, zero where no row counted, and ignores the whole-range row', () => {
    const b = minuteBoundaries(Date.UTC(2026, 0, 1, 0, 2, 10), 3);
    const rows = [
      { bucket: 1, visitors: 2, pageviews: 5 },
      { bucket: null, visitors: 9, pageviews: 9 },
    ];
    expect(perMinute(b, rows)).toEqual([
      { t: Date.UTC(2026, 0, 1, 0, 0) / 1000, visitors: 0, pageviews: 0 },
      { t: Date.UTC(2026, 0, 1, 0, 1) / 1000, visitors: 2, pageviews: 5 },
      { t: Date.UTC(2026, 0, 1, 0, 2) / 1000, visitors: 0, pageviews: 0 },
    ]);
  });
});

describe('Server-Sent Events framing', () => {
  it('writes a named event with its data as one JSON line, a comment heartbeat and the retry line', () => {
    expect(sseEvent('update', { a: 'x\ny' })).toBe('event: update\ndata: {"a":"x\\ny"}\n\n');
    expect(SSE_HEARTBEAT).toBe(': heartbeat\n\n');
    expect(SSE_RETRY).toBe('retry: 5000\n\n');
  });
});

describe('tickets', () => {
  it('are 256 random bits, stored by their SHA-256, and only their form is looked up', () => {
    const a = newLiveTicket();
    expect(isTicketFormat(a)).toBe(true);
    expect(a).not.toBe(newLiveTicket());
    expect(ticketHash(a)).toMatch(/^[0-9a-f]{64}$/);
    for (const bad of ['', 'x', `${a}=`, a.slice(1), `${a.slice(1)}/`]) expect(isTicketFormat(bad), bad).toBe(false);
  });
});

/** What `awslambda` does with a streamed answer: the prelude (status, headers) as JSON, 8 NUL bytes, then the body. */
function fakeRuntime(): StreamingRuntime & { run(event: unknown): Promise<{ prelude: unknown; body: string }>; sockets: PassThrough[] } {
  let body: ((event: never, stream: Writable, context: never) => Promise<void>) | null = null;
  const runtime = {
    sockets: [] as PassThrough[],
    streamifyResponse(handler: typeof body) {
      body = handler;
      return handler;
    },
    HttpResponseStream: {
      from(stream: Writable, prelude: unknown) {
        stream.write(`${JSON.stringify(prelude)}\0\0\0\0\0\0\0\0`);
        return stream;
      },
    },
    async run(event: unknown) {
      const socket = new PassThrough();
      runtime.sockets.push(socket);
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      await (body as NonNullable<typeof body>)(event as never, socket, {} as never);
      const [prelude, rest] = Buffer.concat(chunks).toString().split('\0'.repeat(8));
      return { prelude: JSON.parse(prelude as string), body: rest as string };
    },
  };
  return runtime as never;
}

describe('the response-streaming Lambda entry', () => {
  const group = createGroupHandler<{ ticks: number }>({
    'GET /plain': async () => json(201, { ok: true }),
    'GET /stream': async (req) => ({
      statusCode: 200,
      headers: { 'Content-Type': 'text/event-stream' },
      stream: async (sink) => {
        for (let i = 0; i < req.services.ticks && !sink.closed.aborted; i++) sink.write(`data: ${i}\n\n`);
      },
    }),
    'GET /forever': async () => ({
      statusCode: 200,
      headers: { 'Content-Type': 'text/event-stream' },
      stream: (sink) => new Promise<void>((resolve) => sink.closed.addEventListener('abort', () => resolve())),
    }),
  });

  it('writes an answer’s status and headers first, then its body, routing the Function URL event by path', async () => {
    const runtime = fakeRuntime();
    streamingHandler(group, { ticks: 0 }, runtime);
    const plain = await runtime.run(functionUrlEvent({ method: 'GET', url: '/plain' }));
    expect(plain.prelude).toMatchObject({ statusCode: 201, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    expect(JSON.parse(plain.body)).toEqual({ ok: true });
    const missing = await runtime.run(functionUrlEvent({ method: 'GET', url: '/nowhere' }));
    expect([(missing.prelude as { statusCode: number }).statusCode, JSON.parse(missing.body)]).toEqual([404, { error: 'not found' }]);
  });

  it('writes a streamed body as it comes, and ends the response when the stream settles', async () => {
    const runtime = fakeRuntime();
    streamingHandler(group, { ticks: 3 }, runtime);
    const streamed = await runtime.run(functionUrlEvent({ method: 'GET', url: '/stream' }));
    expect(streamed.prelude).toEqual({ statusCode: 200, headers: { 'Content-Type': 'text/event-stream' } });
    expect(streamed.body).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n');
    expect(runtime.sockets[0]?.writableEnded).toBe(true);
  });

  it('tells the stream when the connection closes, so the invocation ends', async () => {
    const runtime = fakeRuntime();
    streamingHandler(group, { ticks: 0 }, runtime);
    const answered = runtime.run(functionUrlEvent({ method: 'GET', url: '/forever' }));
    await new Promise((r) => setTimeout(r, 20));
    runtime.sockets[0]?.destroy();
    await expect(answered).resolves.toBeDefined();
  });

  it('refuses to start outside Lambda, where no awslambda global exists', () => {
    expect(() => streamingHandler(group, { ticks: 0 })).toThrow(/awslambda is not defined/);
  });
});
