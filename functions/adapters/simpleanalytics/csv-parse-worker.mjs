/**
 * Worker thread of csv-batches.ts: parses CSV with csv-parse off the main
 * thread, so an import's parsing (and its garbage) does not compete with
 * HTTP requests and the DuckDB appender. Plain JavaScript, so it loads
 * without a TypeScript loader. One parse session at a time; every message
 * carries its session number so late ones of an abandoned session are dropped.
 */
import { parentPort } from 'node:worker_threads';
import { CsvError, parse } from 'csv-parse';

let current = null;

function start(session, batchSize) {
  const parser = parse({ bom: true, skip_empty_lines: true });
  const state = { session, parser, batch: [], failed: false };
  const flush = () => {
    if (state.batch.length === 0) return;
    parentPort.postMessage({ type: 'batch', session, records: state.batch });
    state.batch = [];
  };
  parser.on('data', (record) => {
    state.batch.push(record);
    if (state.batch.length >= batchSize) flush();
  });
  parser.on('end', () => {
    flush();
    parentPort.postMessage({ type: 'end', session });
  });
  parser.on('error', (e) => {
    if (state.failed) return;
    state.failed = true;
    flush();
    parentPort.postMessage({ type: 'error', session, csv: e instanceof CsvError, message: String(e?.message ?? e) });
  });
  current = state;
}

parentPort.on('message', (m) => {
  if (m.type === 'start') return start(m.session, m.batchSize);
  const state = current;
  if (!state || state.session !== m.session || state.failed) return;
  if (m.type === 'chunk') {
    const bytes = m.buffer.byteLength;
    state.parser.write(Buffer.from(m.buffer), () => parentPort.postMessage({ type: 'consumed', session: m.session, bytes }));
  } else if (m.type === 'end') {
    state.parser.end();
  }
});
