/**
 * The DynamoDB adapters translate what the store answers: throttling that
 * outlasts the SDK's retries becomes StoreUnavailableError (503 with
 * Retry-After at the edge); other failures stay what they were. dynalite
 * never throttles, so a local HTTP stand-in answers as DynamoDB does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type ProductError } from '#domain/errors.ts';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { errorResponse } from '#http/api.ts';

let answer = { status: 400, type: 'ProvisionedThroughputExceededException' };
let requests = 0;
let server: Server;
let endpoint = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'test' });
      res.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${answer.type}`, message: 'answered by the stand-in' }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

const registry = () =>
  new DynamoRegistry(
    new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 2 }),
    'tinytrack',
  );

describe('the DynamoDB adapters', () => {
  it('turn throttling that outlasted the retries into StoreUnavailableError, answered 503 with Retry-After', async () => {
    answer = { status: 400, type: 'ProvisionedThroughputExceededException' };
    requests = 0;
    const failure = await registry().getSite('throttled.example').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreUnavailableError);
    // The SDK retried first (2 attempts): only what it could not absorb is translated.
    expect(requests).toBe(2);
    const answered = errorResponse(failure as ProductError);
    expect([answered.statusCode, answered.headers?.['Retry-After'], JSON.parse(answered.body ?? '{}')]).toEqual([503, '1', { error: 'service unavailable, retry later' }]);
  });

  it('leave other store failures as they were (an internal error at the edge)', async () => {
    answer = { status: 400, type: 'ValidationException' };
    const failure = await registry().getSite('invalid.example').catch((e: unknown) => e);
    expect(failure).not.toBeInstanceOf(StoreUnavailableError);
    expect((failure as Error).name).toBe('ValidationException');
  });

  it('still read a failed condition as the method’s "no"', async () => {
    answer = { status: 400, type: 'ConditionalCheckFailedException' };
    expect(await registry().updateSite('gone.example', 'owner', { display_name: 'x' })).toBeNull();
  });
});
