// node:http: wraps a request listener; `route(req)` names the route template (plain node:http has no router).
import { elapsedMs } from './index.js';

/** @type {import('./index.d.ts').wrapListener} */
export function wrapListener(client, listener, { route, consumer } = {}) {
  return (req, res) => {
    const start = process.hrtime.bigint();
    let bytesOut = 0;
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    const count = (chunk, encoding) => {
      if (chunk && typeof chunk !== 'function') bytesOut += Buffer.isBuffer(chunk) ? chunk.length : Buffer.byteLength(chunk, typeof encoding === 'string' ? encoding : 'utf8');
    };
    res.write = (chunk, ...rest) => (count(chunk, rest[0]), write(chunk, ...rest));
    res.end = (chunk, ...rest) => (count(chunk, rest[0]), end(chunk, ...rest));
    res.on('finish', () => {
      const length = Number(req.headers['content-length']);
      client.record({
        method: req.method,
        route: route ? route(req) : '(unmatched)',
        status: res.statusCode,
        duration_ms: elapsedMs(start),
        bytes_in: Number.isSafeInteger(length) ? length : undefined,
        bytes_out: bytesOut,
        consumer: consumer?.(req),
      });
    });
    return listener(req, res);
  };
}
