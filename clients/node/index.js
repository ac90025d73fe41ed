// tinytrack API analytics client: buffers request records and sends them to
// POST {endpoint}/api/ingest in batches (every 10 s or 100 records), one
// request at a time, retrying network errors, 429 and 5xx with exponential
// back-off and jitter (honouring Retry-After); other 4xx are reported and the
// batch dropped (it would fail the same way again). No dependencies.

const MAX_ROUTE = 256;
const MAX_CONSUMER = 64;

/** @param {import('./index.d.ts').ClientOptions} options */
export function createTinytrackClient(options) {
  const {
    endpoint,
    apiKey,
    site,
    flushIntervalMs = 10_000,
    maxBatch = 100,
    maxQueue = 10_000,
    maxRetries = 5,
    retryBaseMs = 1_000,
    fetch: fetchImpl = globalThis.fetch,
    onError = () => {},
  } = options;
  if (!endpoint || !apiKey) throw new TypeError('createTinytrackClient needs endpoint and apiKey');
  const url = `${endpoint.replace(/\/+$/, '')}/api/ingest`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, ...(site ? { 'x-service-site': site } : {}) };
  /** @type {object[]} */
  let queue = [];
  let dropped = 0;
  /** @type {Promise<void> | null} */
  let sending = null;
  let closed = false;
  const timer = setInterval(() => void flush(), flushIntervalMs);
  timer.unref?.();

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref?.());

  /** Sends one batch; resolves when it was taken, dropped as refused, or given up after the retries. */
  async function send(batch) {
    for (let attempt = 0; ; attempt++) {
      let wait = 0;
      try {
        const r = await fetchImpl(url, { method: 'POST', headers, body: JSON.stringify({ requests: batch }) });
        if (r.ok) return;
        const text = await r.text().catch(() => '');
        if (r.status !== 429 && r.status < 500) {
          onError(new Error(`tinytrack refused ${batch.length} records: ${r.status} ${text}`));
          return;
        }
        const retryAfter = Number(r.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) wait = retryAfter * 1000;
      } catch (e) {
        if (attempt >= maxRetries) {
          onError(e instanceof Error ? e : new Error(String(e)));
          return;
        }
      }
      if (attempt >= maxRetries) {
        onError(new Error(`tinytrack: gave up on ${batch.length} records after ${maxRetries + 1} attempts`));
        return;
      }
      const ceiling = retryBaseMs * 2 ** attempt;
      await sleep(Math.max(wait, ceiling / 2 + Math.random() * (ceiling / 2)));
    }
  }

  /** Sends everything buffered, batch by batch; one flush at a time. */
  function flush() {
    if (sending) return sending.then(() => (queue.length > 0 ? flush() : undefined));
    if (queue.length === 0) return Promise.resolve();
    sending = (async () => {
      while (queue.length > 0) {
        const batch = queue.slice(0, Math.min(maxBatch, 1000));
        queue = queue.slice(batch.length);
        await send(batch);
      }
    })().finally(() => {
      sending = null;
    });
    return sending;
  }

  return {
    /** @param {import('./index.d.ts').RequestRecord} record */
    record(record) {
      if (closed) return;
      const item = {
        method: String(record.method || 'GET').toUpperCase().slice(0, 16),
        route: String(record.route || '(unmatched)').slice(0, MAX_ROUTE),
        status: Math.trunc(record.status),
        duration_ms: Math.max(0, Number(record.duration_ms) || 0),
        ...(Number.isSafeInteger(record.bytes_in) && record.bytes_in >= 0 ? { bytes_in: record.bytes_in } : {}),
        ...(Number.isSafeInteger(record.bytes_out) && record.bytes_out >= 0 ? { bytes_out: record.bytes_out } : {}),
        ...(record.consumer ? { consumer: String(record.consumer).slice(0, MAX_CONSUMER) } : {}),
      };
      queue.push(item);
      if (queue.length > maxQueue) {
        dropped += queue.length - maxQueue;
        queue = queue.slice(queue.length - maxQueue);
      }
      if (queue.length >= maxBatch) void flush();
    },
    flush,
    async close() {
      closed = true;
      clearInterval(timer);
      await flush();
    },
    get dropped() {
      return dropped;
    },
    get pending() {
      return queue.length;
    },
  };
}

/** Milliseconds since `start` (process.hrtime.bigint()). */
export const elapsedMs = (start) => Number(process.hrtime.bigint() - start) / 1e6;
