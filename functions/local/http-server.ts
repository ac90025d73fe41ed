/**
 * The local/single-node HTTP edge: node:http requests become API Gateway v2
 * events and go to the same group handlers the stack deploys, matched with
 * the same route table.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { findRoute, routeKey } from '#http/routes.ts';
import type { GroupHandler } from '#http/api.ts';
import type { RouteGroup } from '#http/routes.ts';

/** Product request bodies above this are refused before they reach a handler. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface LocalServerOptions {
  groups: Record<RouteGroup, GroupHandler>;
  trustProxy: boolean;
}

function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
}

let requestCounter = 0;

export function toEvent(req: IncomingMessage, url: URL, body: Buffer, matchedRouteKey: string, params: Record<string, string>, sourceIp: string): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: matchedRouteKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(params).length ? params : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: { method: req.method ?? 'GET', path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp, userAgent: headers['user-agent'] ?? '' },
      requestId: `local-${++requestCounter}`,
      routeKey: matchedRouteKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    // Always base64, so bytes arrive exactly as sent whatever the content type.
    body: body.length ? body.toString('base64') : undefined,
    isBase64Encoded: body.length > 0,
  };
}

/**
 * One context for every local invocation: handlers read nothing from it but
 * the request id. It has no getRemainingTimeInMillis: a local request has no
 * Lambda deadline, and without it middy arms no early-timeout timer per request.
 */
const LOCAL_CONTEXT = Object.freeze({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'local',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:local',
  memoryLimitInMB: '512',
  awsRequestId: 'local',
  logGroupName: 'local',
  logStreamName: 'local',
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
}) as unknown as Context;

const EMPTY = Buffer.alloc(0);

/** The whole body, or null past `limit` (the rest is not buffered). Events, not an async iterator: this is the hot path. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (req.headers['content-length'] === '0' || (req.method === 'GET' && !req.headers['transfer-encoding'] && !req.headers['content-length'])) {
    req.resume();
    return Promise.resolve(EMPTY);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? null : chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, options: LocalServerOptions): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://local');
  const match = findRoute(method, url.pathname);
  const group: RouteGroup = match.route ? match.route.group : 'meta';
  const key = match.route ? routeKey(match.route) : '$default';
  const body = await readBody(req, MAX_BODY_BYTES);
  if (!body) {
    res.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
    res.end(JSON.stringify({ error: 'request body too large' }));
    return;
  }
  const event = toEvent(req, url, body, key, match.route ? match.params : {}, clientIp(req, options.trustProxy));
  const result = await options.groups[group](event, LOCAL_CONTEXT);
  // A text body goes out as a string: node then sends headers and body in one write.
  const payload = result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? '');
  // The answer is this request's own object: no copy of its headers needed.
  result.headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(result.statusCode, result.headers);
  res.end(method === 'HEAD' ? undefined : payload);
}

export function createLocalServer(options: LocalServerOptions): Server {
  return createServer((req, res) => {
    handle(req, res, options).catch((e: unknown) => {
      console.error(JSON.stringify({ level: 'error', message: (e as Error)?.message, stack: (e as Error)?.stack }));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ error: 'internal error' }));
    });
  });
}
