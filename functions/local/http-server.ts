/**
 * The local/single-node HTTP edge: node:http requests go to the same group
 * handlers the stack deploys, matched with the same route table, through the
 * handlers' own dispatch (GroupHandler.serve) rather than an API Gateway event.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { routeKey, routes, type RouteGroup } from '#http/routes.ts';
import { createRouteMatcher, type RouteMatch, type RoutePattern } from '#http/route-match.ts';
import { drainedOf, type ApiRequest, type ApiResponse, type GroupHandler } from '#http/api.ts';
import { parseQueryString } from '#http/query-string.ts';
import type { Services } from '#platform/services.ts';
import { clientIp } from '#domain/client-ip.ts';
import { InternalError } from '#domain/errors.ts';
import type { DashboardEdge } from './dashboard-edge.ts';

/** Product request bodies above this are refused before they reach a handler. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface LocalServerOptions {
  groups: Record<RouteGroup, GroupHandler>;
  /** Proxies in front whose X-Forwarded-For entries are believed (TRUST_PROXY). */
  trustedProxies: number;
  /** The routes the edge dispatches: the route table unless given (tests hand it their own). */
  routes?: readonly EdgeRoute[];
  /** The instance's services, handed to every request. */
  services: Services;
  /** The dashboard, asked for requests no product route matched (functions/local/dashboard-edge.ts). */
  dashboard?: DashboardEdge;
}

type EdgeRoute = RoutePattern & { group: RouteGroup };

/** The edge's view of its routes: the matcher, each route's key, and the paths without parameters. */
interface EdgeTable {
  find: (method: string, path: string) => RouteMatch<EdgeRoute>;
  keys: Map<EdgeRoute, string>;
  literalPaths: Set<string>;
}

function edgeTable(edgeRoutes: readonly EdgeRoute[]): EdgeTable {
  return {
    find: createRouteMatcher(edgeRoutes),
    keys: new Map(edgeRoutes.map((r) => [r, routeKey(r)])),
    literalPaths: new Set(edgeRoutes.filter((r) => !r.path.includes('{')).map((r) => r.path)),
  };
}

function sourceIp(req: IncomingMessage, trustedProxies: number): string {
  const forwarded = req.headers['x-forwarded-for'];
  return clientIp(req.socket.remoteAddress ?? '127.0.0.1', Array.isArray(forwarded) ? forwarded.join(',') : forwarded, trustedProxies);
}

/**
 * The path and the query string (without `?`) of a request target. A path
 * that is exactly a literal route's (every collector and health request) is
 * taken as it is: the WHATWG URL parser would return it unchanged, and the
 * query decodes the same either way. Anything else goes through the parser
 * (dot segments, percent-escapes in the path, `//`, a fragment).
 */
function splitTarget(target: string, literalPaths: Set<string>): { path: string; search: string } {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  if (literalPaths.has(path) && !target.includes('#')) return { path, search: q < 0 ? '' : target.slice(q + 1) };
  const url = new URL(target, 'http://local');
  return { path: url.pathname, search: url.search.slice(1) };
}

/**
 * Header values by lowercased name, as API Gateway gives them. Node already
 * lowercases names and joins repeated headers with commas, all but
 * `set-cookie`, which it keeps as a list: only then is a copy needed.
 */
function headersOf(req: IncomingMessage): Record<string, string> {
  const headers = req.headers;
  if (headers['set-cookie'] === undefined) return headers as Record<string, string>;
  const joined: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) joined[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return joined;
}

/**
 * The request as a route function reads it, built from node:http directly:
 * the same fields an API Gateway v2 event gives on Lambda (functions/http/api.ts
 * toApiRequest).
 */
function requestFromNode(req: IncomingMessage, method: string, path: string, search: string, body: Buffer, params: Record<string, string>, sourceIp: string, services: Services): ApiRequest {
  return { method, path, params, query: parseQueryString(search), headers: headersOf(req), body, sourceIp, services };
}

const EMPTY = Buffer.alloc(0);

/** The client closed the connection before its request body was complete: nobody is left to answer. */
class ClientGone extends Error {}

/**
 * The whole body, or null past `limit` (the rest is not buffered). Events, not an async iterator: this is the hot path.
 * Rejects with ClientGone when the connection closes first, which is no server failure.
 */
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
    req.on('error', (e) => reject(req.complete ? e : new ClientGone(e.message)));
    req.on('close', () => {
      if (!req.complete) reject(new ClientGone('connection closed'));
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, options: LocalServerOptions & { openStreams: Set<AbortController> }, table: EdgeTable): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const { path, search } = splitTarget(req.url ?? '/', table.literalPaths);
  const match = table.find(method, path);
  const group: RouteGroup = match.route ? match.route.group : 'meta';
  const key = match.route ? (table.keys.get(match.route) as string) : '$default';
  const body = await readBody(req, MAX_BODY_BYTES);
  const handler = options.groups[group];
  let result: ApiResponse;
  const page = body && !match.route && options.dashboard ? await options.dashboard(method, path, body, req.headers as Record<string, string | undefined>) : null;
  if (page) {
    result = page;
  } else if (body) {
    result = await handler.serve(requestFromNode(req, method, path, search, body, match.route ? match.params : {}, sourceIp(req, options.trustedProxies), options.services), key);
  } else {
    // In the route group's own form: the collector's errors are plain text.
    result = handler.tooLarge();
    result.headers.connection = 'close';
  }
  if (result.stream) return streamAnswer(res, result, result.stream, options.openStreams);
  // A text body goes out as a string: node then sends headers and body in one write.
  const payload = result.isBase64Encoded && result.body ? Buffer.from(result.body, 'base64') : (result.body ?? '');
  // The answer is this request's own object: no copy of its headers needed.
  result.headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(result.statusCode, result.headers);
  res.end(method === 'HEAD' ? undefined : payload);
}

/**
 * A streamed answer: status and headers at once, then what the stream writes until it settles.
 * The stream is told when the client goes away, or when the server stops (`open`).
 */
async function streamAnswer(res: ServerResponse, result: ApiResponse, stream: NonNullable<ApiResponse['stream']>, open: Set<AbortController>): Promise<void> {
  // Not kept alive after it ends: a stopping server then has nothing left to wait for.
  res.writeHead(result.statusCode, { ...result.headers, connection: 'close' });
  res.flushHeaders();
  const closed = new AbortController();
  const abort = () => closed.abort();
  res.once('close', abort);
  open.add(closed);
  let failed = false;
  try {
    await stream({ write: (chunk) => void res.write(chunk), drained: drainedOf(res), closed: closed.signal });
  } catch (e) {
    // The status went out long ago: cut the connection, so the client sees an unfinished answer, never a whole-looking file.
    failed = true;
    console.error(JSON.stringify({ level: 'error', msg: 'stream failed', message: (e as Error)?.message, stack: (e as Error)?.stack }));
  } finally {
    open.delete(closed);
    res.off('close', abort);
    if (failed) res.destroy();
    else res.end();
  }
}

/** The local edge: node:http over the group handlers. `endStreams` ends every open stream (on stop, which would otherwise wait for them). */
export function createLocalServer(options: LocalServerOptions): Server & { endStreams(): void } {
  const table = edgeTable(options.routes ?? routes);
  const openStreams = new Set<AbortController>();
  const server = createServer((req, res) => {
    handle(req, res, { ...options, openStreams }, table).catch((e: unknown) => {
      if (e instanceof ClientGone) {
        console.debug(JSON.stringify({ level: 'debug', msg: 'client disconnected mid-request', method: req.method, message: e.message }));
        return;
      }
      console.error(JSON.stringify({ level: 'error', message: (e as Error)?.message, stack: (e as Error)?.stack }));
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ error: InternalError.text }));
    });
  });
  return Object.assign(server, {
    endStreams: () => {
      for (const stream of openStreams) stream.abort();
    },
  });
}
