/**
 * The document client the DynamoDB adapters use, where their SDK errors are
 * translated: throttling that outlasted the SDK's own retries becomes
 * StoreUnavailableError, a 503 with Retry-After instead of an internal error.
 * (A failed condition is the adapters' "no": conditional-write.ts.)
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '#domain/errors.ts';

/** DynamoDB's answers that mean "too much right now, ask again" (after the SDK's retries gave up). */
const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'LimitExceededException']);

/** The store's own error, or the domain's refusal when it only says "later". */
export function translateStoreError(e: unknown): unknown {
  return THROTTLED.has((e as Error)?.name) ? new StoreUnavailableError() : e;
}

export function documentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  // At `initialize`, outside the retry middleware: only what the retries could not absorb is translated.
  doc.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (e) {
        throw translateStoreError(e);
      }
    },
    // The document client shares its SDK client's stack: a second adapter over one client replaces, not repeats, it.
    { step: 'initialize', name: 'translateStoreErrors', override: true },
  );
  return doc;
}
