/**
 * Test support: a Server-Sent Events client over fetch (as a browser's
 * EventSource reads the stream, but able to send headers and to be closed
 * at a chosen moment), keeping every event, comment and retry line it read.
 */
export interface SseMessage {
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** When it was read (performance.now()). */
  at: number;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The body of a refusal (JSON), when the answer is no stream. */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  messages: SseMessage[];
  comments: string[];
  retry: number | null;
  /** Resolves with the first message (after those already read) named `event` that `ready` accepts; rejects after `timeoutMs`. */
  next(event: string, ready?: (data: any) => boolean, timeoutMs?: number): Promise<SseMessage>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Resolves when the server has ended the stream. */
  ended: Promise<void>;
  /** Disconnects, as a closed tab does. */
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const stream: SseStream = {
    status: res.status,
    headers: res.headers,
    json: undefined,
    messages: [],
    comments: [],
    retry: null,
    next: () => Promise.reject(new Error('no stream')),
    ended: Promise.resolve(),
    close: () => abort.abort(),
  };
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    stream.json = JSON.parse(await res.text());
    return stream;
  }
  const waiters = new Set<() => void>();
  let read = 0;
  const take = (block: string) => {
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
      else if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
      else if (line.startsWith('retry: ')) stream.retry = Number(line.slice(7));
    }
    if (data) stream.messages.push({ event, data: JSON.parse(data), at: performance.now() });
    for (const wake of waiters) wake();
  };
  stream.ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          take(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Closed by this side.
    }
    for (const wake of waiters) wake();
  })();
  stream.next = (event, ready = () => true, timeoutMs = 10_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        for (; read < stream.messages.length; read++) {
          const m = stream.messages[read] as SseMessage;
          if (m.event === event && ready(m.data)) {
            read++;
            waiters.delete(check);
            clearTimeout(timer);
            resolve(m);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${event} event within ${timeoutMs} ms (read: ${stream.messages.map((m) => m.event).join(', ')})`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return stream;
}
