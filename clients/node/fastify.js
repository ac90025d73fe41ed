// Fastify: app.register(tinytrackFastify, { client }) or call it with the instance; the route template is routeOptions.url.
import { elapsedMs } from './index.js';

/** @type {import('./index.d.ts').tinytrackFastify} */
export function tinytrackFastify(app, { client, consumer }, done) {
  const starts = new WeakMap();
  app.addHook('onRequest', (req, _reply, next) => {
    starts.set(req, process.hrtime.bigint());
    next();
  });
  app.addHook('onResponse', (req, reply, next) => {
    const start = starts.get(req) ?? process.hrtime.bigint();
    const length = Number(req.headers['content-length']);
    const sent = Number(reply.getHeader('content-length'));
    client.record({
      method: req.method,
      route: req.routeOptions?.url ?? '(unmatched)',
      status: reply.statusCode,
      duration_ms: elapsedMs(start),
      bytes_in: Number.isSafeInteger(length) ? length : undefined,
      bytes_out: Number.isSafeInteger(sent) ? sent : undefined,
      consumer: consumer?.(req),
    });
    next();
  });
  done?.();
}
// Lets fastify.register() apply the hooks to the whole app, not an encapsulated child.
tinytrackFastify[Symbol.for('skip-override')] = true;
