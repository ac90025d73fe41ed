/** Types of the tinytrack API analytics client (index.js and its middleware). */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestRecord {
  method: string;
  /** The route template (`/users/{id}`), never the raw path with ids. */
  route: string;
  status: number;
  duration_ms: number;
  bytes_in?: number | undefined;
  bytes_out?: number | undefined;
  /** An opaque label of the caller (at most 64 characters). */
  consumer?: string | undefined;
}

export interface ClientOptions {
  /** The service's origin, e.g. `https://tinytrack.example.com`. */
  endpoint: string;
  /** A site API key (`tt_…`), or a management key with scope `ingest` together with `site`. */
  apiKey: string;
  /** The site's hostname, sent as X-Service-Site (with a management key). */
  site?: string;
  /** Default 10,000. */
  flushIntervalMs?: number;
  /** Records per request and the count that triggers a send; default 100 (at most 1,000). */
  maxBatch?: number;
  /** Records kept while the service is unreachable; the oldest are dropped past it (default 10,000). */
  maxQueue?: number;
  /** Retries of a batch after the first attempt (default 5). */
  maxRetries?: number;
  /** First back-off in ms, doubling (default 1,000). */
  retryBaseMs?: number;
  fetch?: typeof fetch;
  /** Refused batches and given-up retries; the client never throws at the caller. */
  onError?: (error: Error) => void;
}

export interface TinytrackClient {
  record(record: RequestRecord): void;
  /** Sends everything buffered now. */
  flush(): Promise<void>;
  /** Flushes and stops the timer: call it on shutdown. */
  close(): Promise<void>;
  /** Records dropped because the buffer was full. */
  readonly dropped: number;
  /** Records waiting to be sent. */
  readonly pending: number;
}

export function createTinytrackClient(options: ClientOptions): TinytrackClient;

export function wrapListener(
  client: TinytrackClient,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  options?: { route?: (req: IncomingMessage) => string; consumer?: (req: IncomingMessage) => string | undefined },
): (req: IncomingMessage, res: ServerResponse) => void;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
export function tinytrackExpress(client: TinytrackClient, options?: { consumer?: (req: Any) => string | undefined }): (req: Any, res: Any, next: () => void) => void;
export function tinytrackFastify(app: Any, options: { client: TinytrackClient; consumer?: (req: Any) => string | undefined }, done?: () => void): void;
export function tinytrackHono(client: TinytrackClient, options?: { consumer?: (c: Any) => string | undefined }): (c: Any, next: () => Promise<void>) => Promise<void>;
