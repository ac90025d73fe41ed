/**
 * Lambda events for tests, from the captured payloads in test/fixtures/lambda/
 * (shaped as AWS documents them), each adjusted per case: path, method,
 * headers, body. Every call parses the file again, so cases never share one object.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2, LambdaFunctionURLEvent, SQSEvent, SQSRecord, ScheduledEvent } from 'aws-lambda';
import { matchPath, parseRouteKey } from '#http/route-match.ts';

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../fixtures/lambda/${name}`, import.meta.url), 'utf8')) as T;
}

export interface HttpCase {
  method: string;
  /** The path, with a query string if any. */
  url: string;
  /** Merged over the captured headers (names lowercase, as API Gateway and Function URLs send them). */
  headers?: Record<string, string>;
  body?: string;
  /** The body base64-encoded, as both platforms send a binary content type. */
  base64?: boolean;
  /** The client address the platform saw (requestContext.http.sourceIp and the X-Forwarded-For it adds). */
  sourceIp?: string;
  /** The domain the request arrived on (requestContext.domainName, Host). */
  domainName?: string;
}

/** The HTTP parts both payload-2.0 events share. */
function adjust<E extends APIGatewayProxyEventV2>(event: E, c: HttpCase): E {
  const url = new URL(c.url, 'http://fixture.invalid');
  const http = event.requestContext.http;
  event.rawPath = url.pathname;
  event.rawQueryString = url.search.slice(1);
  if (url.search) {
    // API Gateway joins a repeated parameter's values with commas.
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
    event.queryStringParameters = query;
  } else delete event.queryStringParameters;
  http.method = c.method;
  http.path = url.pathname;
  if (c.sourceIp) {
    http.sourceIp = c.sourceIp;
    event.headers['x-forwarded-for'] = c.sourceIp;
  }
  if (c.domainName) {
    event.requestContext.domainName = c.domainName;
    event.requestContext.domainPrefix = c.domainName.split('.')[0] as string;
    event.headers.host = c.domainName;
  }
  event.headers = { ...event.headers, ...c.headers };
  http.userAgent = event.headers['user-agent'] ?? '';
  if (c.body === undefined) {
    delete event.body;
    delete event.headers['content-length'];
    event.isBase64Encoded = false;
  } else {
    event.body = c.base64 ? Buffer.from(c.body).toString('base64') : c.body;
    event.headers['content-length'] = String(Buffer.byteLength(c.body));
    event.isBase64Encoded = c.base64 === true;
  }
  return event;
}

/**
 * What an API Gateway HTTP API (payload format 2.0) hands the route's Lambda:
 * `routeKey` is the route API Gateway chose (`$default` for none), and the
 * path parameters are that route's.
 */
export function httpApiEvent(routeKey: string, c: HttpCase): APIGatewayProxyEventV2 {
  const event = adjust(fixture<APIGatewayProxyEventV2>('http-api-v2.json'), c);
  event.routeKey = routeKey;
  event.requestContext.routeKey = routeKey;
  const params = routeKey === '$default' ? null : matchPath(parseRouteKey(routeKey).path, event.rawPath);
  if (params && Object.keys(params).length > 0) event.pathParameters = params;
  else delete event.pathParameters;
  return event;
}

/** What a Lambda Function URL (auth NONE) hands the function: no route key (`$default`), no path parameters. */
export function functionUrlEvent(c: HttpCase): LambdaFunctionURLEvent {
  return adjust(fixture<LambdaFunctionURLEvent>('function-url.json'), c);
}

/** An SQS event source mapping's batch: one record per message, in order. */
export function sqsEvent(...messages: { messageId: string; body: string }[]): SQSEvent {
  const [template] = fixture<SQSEvent>('sqs.json').Records as [SQSRecord];
  return {
    Records: messages.map(({ messageId, body }) => ({
      ...structuredClone(template),
      messageId,
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
    })),
  };
}

/** The EventBridge scheduled event a cron rule sends, fired at `time`. */
export function scheduledEvent(time: Date): ScheduledEvent {
  const event = fixture<ScheduledEvent>('eventbridge-scheduled.json');
  event.time = time.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return event;
}
