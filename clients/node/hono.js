// Hono: app.use('*', tinytrackHono(client)); the route template is the matched route path.
import { elapsedMs } from './index.js';

/** @type {import('./index.d.ts').tinytrackHono} */
export function tinytrackHono(client, { consumer } = {}) {
  return async (c, next) => {
    const start = process.hrtime.bigint();
    await next();
    const length = Number(c.req.header('content-length'));
    const sent = Number(c.res.headers.get('content-length'));
    const template = c.req.routePath;
    client.record({
      method: c.req.method,
      route: template && template !== '*' && template !== '/*' ? template : '(unmatched)',
      status: c.res.status,
      duration_ms: elapsedMs(start),
      bytes_in: Number.isSafeInteger(length) ? length : undefined,
      bytes_out: Number.isSafeInteger(sent) ? sent : undefined,
      consumer: consumer?.(c),
    });
  };
}
