/**
 * The HTTP edge shared by every route group: API Gateway v2 event → ApiRequest
 * → route function → response, inside one middy handler per group. Product
 * conventions live here: preflights, JSON errors with no-store, 404 `not
 * found`, 500 `internal error` without details.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { InternalError, NotFoundError, ProductError } from '#domain/errors.ts';
import { httpOf } from './refusals.ts';
import type { Caller } from '#domain/auth.ts';
import type { Services } from '#platform/services.ts';
import { log, logEnabled, type LogLevel } from '#platform/log.ts';
import { createRouteMatcher, parseRouteKey } from './route-match.ts';
import { parseQueryString } from './query-string.ts';

/** Where a streamed answer writes; `closed` is aborted when the client goes away (or the platform ends the response). */
export interface StreamSink {
  write(chunk: string): void;
  /**
   * Back-pressure: settles once what was written has gone out far enough to write more (at once when
   * nothing waits), or when the client went away. A stream that writes much (the export) awaits it
   * after each write, so a slow client holds the reads back instead of filling memory.
   */
  drained(): Promise<void>;
  readonly closed: AbortSignal;
}

/** StreamSink.drained over a Node writable: at once unless it asked for a drain, then its `drain`, `close` or `error`. */
export function drainedOf(out: { writableNeedDrain: boolean; once(event: 'drain' | 'close' | 'error', listener: () => void): unknown; off(event: 'drain' | 'close' | 'error', listener: () => void): unknown }): () => Promise<void> {
  return () => {
    if (!out.writableNeedDrain) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        out.off('drain', done);
        out.off('close', done);
        out.off('error', done);
        resolve();
      };
      out.once('drain', done);
      out.once('close', done);
      out.once('error', done);
    });
  };
}

export type ApiResponse = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  /**
   * A streamed body (the live stream's Server-Sent Events), written after the status and headers
   * until the promise settles: by the local server, and on AWS by a response-streaming function
   * (functions/aws/streaming.ts). API Gateway never carries one.
   */
  stream?: (sink: StreamSink) => Promise<void>;
};

/** A request with the services of the group answering it (`S`: what that group's routes read). */
export interface ApiRequest<S = Services> {
  method: string;
  path: string;
  params: Record<string, string>;
  /** The query string's names and values, the last of a repeated name winning (http/query-string.ts). */
  query: Record<string, string>;
  /** Lowercased names. */
  headers: Record<string, string>;
  body: Buffer;
  sourceIp: string;
  /**
   * `https://` + the domain the platform received the request on (Lambda: requestContext.domainName,
   * e.g. the collector's Function URL). Unset locally, where only a client's Host header would say.
   */
  servedOrigin?: string;
  services: S;
  /** Memo for the resolved caller (functions/http/auth.ts). */
  caller?: Promise<Caller>;
}

export type RouteHandler<S = Services> = (req: ApiRequest<S>) => Promise<ApiResponse>;

const NO_STORE = { 'Cache-Control': 'no-store' };

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { statusCode, headers: { 'Content-Type': 'application/json; charset=utf-8', ...NO_STORE, ...headers }, body: JSON.stringify(body) };
}

export function text(statusCode: number, body: string, headers: Record<string, string> = {}): ApiResponse {
  return { statusCode, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...NO_STORE, ...headers }, body };
}

export function errorResponse(e: ProductError): ApiResponse {
  const { status, headers } = httpOf(e);
  return json(status, { error: e.message }, headers);
}

/** Preflight for every path (spec part 4 "Conventions"); it does not enable cross-origin product calls. */
export function preflight(): ApiResponse {
  return {
    statusCode: 204,
    headers: { 'Access-Control-Allow-Methods': 'GET, POST, OPTIONS', 'Access-Control-Allow-Headers': 'Content-Type', 'Access-Control-Max-Age': '86400' },
    body: '',
  };
}

/** The body parsed as JSON, or undefined when it is missing or not JSON (Content-Type is not consulted). */
export function jsonBody(req: Pick<ApiRequest<unknown>, 'body'>): unknown {
  if (req.body.length === 0) return undefined;
  try {
    return JSON.parse(req.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function lowerHeaders(headers: APIGatewayProxyEventV2['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export function toApiRequest<S>(event: APIGatewayProxyEventV2, services: S): ApiRequest<S> {
  const raw = event.body ?? '';
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    params: (event.pathParameters ?? {}) as Record<string, string>,
    query: parseQueryString(event.rawQueryString ?? ''),
    headers: lowerHeaders(event.headers),
    body: Buffer.from(raw, event.isBase64Encoded ? 'base64' : 'utf8'),
    sourceIp: event.requestContext.http.sourceIp,
    ...(event.requestContext.domainName ? { servedOrigin: `https://${event.requestContext.domainName}` } : {}),
    services,
  };
}

export type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<ApiResponse>;

export interface GroupHandler<S = Services> {
  routes: Readonly<Record<string, RouteHandler<S>>>;
  /**
   * The dispatch and error answers for a request already in ApiRequest form,
   * under its route key: the local edge's entry. It builds the request
   * straight from node:http, skipping the API Gateway event and its base64
   * body (measured: a quarter of the collector's time per beacon).
   */
  serve(req: ApiRequest<S>, routeKey: string): Promise<ApiResponse>;
  /** The answer to a body over the edge's own cap, which never reaches a route (a new object each call). */
  tooLarge(): ApiResponse;
  /** The Lambda handler of this group over `services`, which its composition root built once. */
  lambda(services: S): LambdaHttpHandler;
}

export interface GroupOptions {
  /** The group's answer to a body over the edge's cap; product routes answer JSON `request body too large`. */
  tooLarge?: () => ApiResponse;
  /** Level of the per-request log line: info, or debug for the collector's beacons. */
  requestLogLevel?: LogLevel;
}

/** A refusal → its JSON answer; anything else → 500 `internal error`, details only in the log. */
function errorAnswer(e: Error | null | undefined, routeKey: string): ApiResponse {
  if (e instanceof ProductError) return errorResponse(e);
  log.error('request failed', { route: routeKey, message: e?.message, stack: e?.stack });
  return errorResponse(new InternalError());
}

/**
 * One line per request: method, route template (never the path, query or
 * headers, so no hostname, token or key), status and duration.
 */
function logRequest(level: LogLevel, method: string, routeKey: string | null, status: number, started: number): void {
  if (!logEnabled(level)) return;
  const route = routeKey === null ? null : routeKey.slice(routeKey.indexOf(' ') + 1);
  log[level]('request', { method, route, status, ms: Math.round((performance.now() - started) * 10) / 10 });
}

/** middy error middleware: the answers of errorAnswer. */
function apiErrors(): middy.MiddlewareObj<APIGatewayProxyEventV2, ApiResponse> {
  return {
    onError: async (request) => {
      request.response = errorAnswer(request.error, request.event.routeKey);
    },
  };
}

/**
 * One Lambda handler for a route group, dispatching on the API Gateway route
 * key; `$default` (a Function URL event, or no route matched) by path, with the
 * same matcher as the local edge; no route, or a key it does not know, answers 404 `not found`.
 */
export function createGroupHandler<S>(routeHandlers: Record<string, RouteHandler<S>>, options: GroupOptions = {}): GroupHandler<S> {
  const match = createRouteMatcher(Object.keys(routeHandlers).map((key) => ({ key, ...parseRouteKey(key) })));
  const requestLogLevel = options.requestLogLevel ?? 'info';
  /** The key of the route that answers: its own, or for Function URLs (the collector, no route key) the group route its path matches. */
  const resolve = (req: ApiRequest<S>, routeKey: string): string | null => {
    if (routeHandlers[routeKey]) return routeKey;
    if (routeKey !== '$default') return null;
    const matched = match(req.method, req.path);
    if (!matched.route) return null;
    req.params = matched.params;
    return matched.route.key;
  };
  const serve = async (req: ApiRequest<S>, routeKey: string): Promise<ApiResponse> => {
    const started = performance.now();
    const key = resolve(req, routeKey);
    let response: ApiResponse;
    try {
      if (req.method === 'OPTIONS') response = preflight();
      else if (key === null) throw new NotFoundError();
      else response = await (routeHandlers[key] as RouteHandler<S>)(req);
    } catch (e) {
      response = errorAnswer(e as Error, routeKey);
    }
    logRequest(requestLogLevel, req.method, key, response.statusCode, started);
    return response;
  };
  const lambda = (services: S): LambdaHttpHandler =>
    middy<APIGatewayProxyEventV2, ApiResponse>()
      .use(apiErrors())
      .handler(async (event) => serve(toApiRequest(event, services), event.routeKey)) as unknown as LambdaHttpHandler;
  return { routes: routeHandlers, serve, tooLarge: options.tooLarge ?? (() => json(413, { error: 'request body too large' })), lambda };
}
