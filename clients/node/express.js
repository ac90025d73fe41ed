// Express: app.use(tinytrackExpress(client)) before the routes; the route template is read when the response finishes.
import { elapsedMs } from './index.js';

/** @type {import('./index.d.ts').tinytrackExpress} */
export function tinytrackExpress(client, { consumer } = {}) {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const template = req.route?.path;
      const length = Number(req.headers['content-length']);
      const sent = Number(res.getHeader('content-length'));
      client.record({
        method: req.method,
        route: typeof template === 'string' ? `${req.baseUrl ?? ''}${template}` : '(unmatched)',
        status: res.statusCode,
        duration_ms: elapsedMs(start),
        bytes_in: Number.isSafeInteger(length) ? length : undefined,
        bytes_out: Number.isSafeInteger(sent) ? sent : undefined,
        consumer: consumer?.(req),
      });
    });
    next();
  };
}
