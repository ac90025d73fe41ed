/**
 * Worker thread of csv-batches.ts: parses CSV off the main thread, so an
 * import's parsing (and its garbage) does not compete with HTTP requests and
 * the DuckDB appender. Plain JavaScript, so it loads without a TypeScript
 * loader. One parse session at a time; every message carries its session
 * number so late ones of an abandoned session are dropped.
 */
import { parentPort } from 'node:worker_threads';
import { createCsvStream } from './csv-stream.mjs';

let current = null;

function start(session, batchSize) {
  const state = { session, failed: false, stream: null };
  let batch = [];
  const flush = () => {
    if (batch.length === 0) return;
    parentPort.postMessage({ type: 'batch', session, records: batch });
    batch = [];
  };
  state.stream = createCsvStream({
    record(record) {
      batch.push(record);
      if (batch.length >= batchSize) flush();
    },
    end() {
      flush();
      parentPort.postMessage({ type: 'end', session });
    },
    fail(message) {
      if (state.failed) return;
      state.failed = true;
      flush();
      parentPort.postMessage({ type: 'error', session, csv: true, message });
    },
  });
  current = state;
}

parentPort.on('message', (m) => {
  if (m.type === 'start') return start(m.session, m.batchSize);
  const state = current;
  if (!state || state.session !== m.session || state.failed) return;
  if (m.type === 'chunk') {
    const bytes = m.buffer.byteLength;
    state.stream.write(Buffer.from(m.buffer));
    parentPort.postMessage({ type: 'consumed', session: m.session, bytes });
  } else if (m.type === 'end') {
    state.stream.end();
  }
});
