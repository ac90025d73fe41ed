/**
 * A route group in a response-streaming Lambda behind its Function URL (the
 * live stream, issue 39): the group's own dispatch answers the Function URL
 * event, and the answer is written through the runtime's HTTP response
 * stream, its status and headers first; a streamed body is written as it
 * comes until it settles, ending early when the connection closes.
 */
import type { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { drainedOf, toApiRequest, type GroupHandler } from '#http/api.ts';

type StreamingBody = (event: APIGatewayProxyEventV2, responseStream: Writable, context: Context) => Promise<void>;

/** The part of the Node.js runtime's `awslambda` global a streaming handler uses (the runtime publishes no types for it). */
export interface StreamingRuntime {
  streamifyResponse(handler: StreamingBody): unknown;
  HttpResponseStream: { from(responseStream: Writable, prelude: { statusCode: number; headers: Record<string, string> }): Writable };
}

const lambdaRuntime = (): StreamingRuntime => {
  const runtime = (globalThis as { awslambda?: StreamingRuntime }).awslambda;
  if (!runtime) throw new Error('awslambda is not defined: a response-streaming handler runs only in the Lambda Node.js runtime');
  return runtime;
};

/** The Lambda handler of `group` over `services`, streaming its answers. */
export function streamingHandler<S>(group: GroupHandler<S>, services: S, runtime: StreamingRuntime = lambdaRuntime()): unknown {
  return runtime.streamifyResponse(async (event, responseStream) => {
    const response = await group.serve(toApiRequest(event, services), '$default');
    const out = runtime.HttpResponseStream.from(responseStream, { statusCode: response.statusCode, headers: response.headers });
    if (response.stream) {
      const closed = new AbortController();
      const abort = () => closed.abort();
      out.once('close', abort);
      out.once('error', abort);
      await response.stream({ write: (chunk) => void out.write(chunk), drained: drainedOf(out), closed: closed.signal });
      out.off('close', abort);
      out.off('error', abort);
    } else if (response.body) {
      out.write(response.isBase64Encoded ? Buffer.from(response.body, 'base64') : response.body);
    }
    out.end();
  });
}
