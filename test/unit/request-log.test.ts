/**
 * The request log of the shared dispatch (functions/http/api.ts), on the local
 * edge's entry and the Lambda path alike, under each LOG_LEVEL. The level is
 * read when the logger loads, so each case loads the modules afresh.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Context } from 'aws-lambda';
import type { ApiRequest } from '#http/api.ts';
import type { Services } from '#platform/services.ts';
import { functionUrlEvent, httpApiEvent } from '../support/lambda-events.ts';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.secret-token.signature';

/** api.ts and the logger loaded under LOG_LEVEL=`level` (unset: undefined), with stdout and stderr lines captured. */
async function load(level: string | undefined) {
  vi.resetModules();
  if (level === undefined) vi.stubEnv('LOG_LEVEL', undefined as unknown as string);
  else vi.stubEnv('LOG_LEVEL', level);
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
  const api = await import('#http/api.ts');
  const product = api.createGroupHandler({
    'GET /api/things/{id}': async () => api.json(200, { ok: true }),
    'POST /api/broken': async () => {
      throw new Error('boom');
    },
  });
  const collector = api.createGroupHandler({ 'POST /events': async () => api.text(200, 'ok') }, { requestLogLevel: 'debug' });
  const request = (method: string, path: string, query: Record<string, string> = {}): ApiRequest => ({
    method,
    path,
    params: {},
    query,
    headers: { authorization: `Bearer ${TOKEN}` },
    body: Buffer.alloc(0),
    sourceIp: '127.0.0.1',
    services: {} as Services,
  });
  const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { api, product, collector, request, lines, logged };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('request log', () => {
  it('writes one info line per product request with method, route template, status and ms, without path values, query or token', async () => {
    const { product, request, lines, logged } = await load(undefined);
    await product.serve(request('GET', '/api/things/abc', { key: 'tt_mk_query-secret' }), 'GET /api/things/{id}');
    expect(logged()).toEqual([{ level: 'info', time: expect.any(String), msg: 'request', method: 'GET', route: '/api/things/{id}', status: 200, ms: expect.any(Number) }]);
    for (const secret of [TOKEN, 'query-secret', 'abc']) expect(lines.join('\n')).not.toContain(secret);
  });

  it('logs a 404 with a null route and a failure with its status after the error line', async () => {
    const { product, request, logged } = await load(undefined);
    await product.serve(request('GET', '/api/nowhere'), '$default');
    await product.serve(request('POST', '/api/broken'), 'POST /api/broken');
    expect(logged().map(({ level, msg, route, status }) => ({ level, msg, route, status }))).toEqual([
      { level: 'info', msg: 'request', route: null, status: 404 },
      { level: 'error', msg: 'request failed', route: 'POST /api/broken', status: undefined },
      { level: 'info', msg: 'request', route: '/api/broken', status: 500 },
    ]);
  });

  it('writes the same line on the Lambda path, and for a Function URL the matched route', async () => {
    const { product, collector, logged } = await load('debug');
    const headers = { authorization: `Bearer ${TOKEN}` };
    await product.lambda({} as Services)(httpApiEvent('GET /api/things/{id}', { method: 'GET', url: '/api/things/abc?token=x', headers }), {} as Context);
    await collector.lambda({} as Services)(functionUrlEvent({ method: 'POST', url: '/events?token=x', headers }), {} as Context);
    expect(logged().map(({ level, method, route, status }) => ({ level, method, route, status }))).toEqual([
      { level: 'info', method: 'GET', route: '/api/things/{id}', status: 200 },
      { level: 'debug', method: 'POST', route: '/events', status: 200 },
    ]);
  });

  it('keeps collector beacons out of the info level and logs them at debug', async () => {
    const atInfo = await load('info');
    await atInfo.collector.serve(atInfo.request('POST', '/events'), 'POST /events');
    expect(atInfo.lines).toEqual([]);
    const atDebug = await load('debug');
    await atDebug.collector.serve(atDebug.request('POST', '/events'), 'POST /events');
    expect(atDebug.logged().map(({ level, route }) => ({ level, route }))).toEqual([{ level: 'debug', route: '/events' }]);
  });

  it('drops info lines at LOG_LEVEL=warn and keeps errors', async () => {
    const { product, request, logged } = await load('warn');
    await product.serve(request('GET', '/api/things/abc'), 'GET /api/things/{id}');
    await product.serve(request('POST', '/api/broken'), 'POST /api/broken');
    expect(logged().map(({ level, msg }) => ({ level, msg }))).toEqual([{ level: 'error', msg: 'request failed' }]);
  });

  it('warns once about an unknown LOG_LEVEL and uses info', async () => {
    const { product, request, logged } = await load('verbose');
    await product.serve(request('GET', '/api/things/abc'), 'GET /api/things/{id}');
    expect(logged().map(({ level, msg, value }) => ({ level, msg, value }))).toEqual([
      { level: 'warn', msg: 'unknown LOG_LEVEL, using info', value: 'verbose' },
      { level: 'info', msg: 'request', value: undefined },
    ]);
  });
});
