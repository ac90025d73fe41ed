/**
 * The DynamoDB adapters' conditional writes over a real dynalite: a condition
 * that holds gives the write's answer, one that fails gives the caller's "no"
 * (a result, or the domain error it throws), and every other store error is
 * thrown as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditionalWrite, conditionHeld, unlessConditionFails } from '#adapters/dynamodb/conditional-write.ts';
import { documentClient } from '#adapters/dynamodb/document-client.ts';
import { HostnameTakenError } from '#domain/errors.ts';
import { loadConfig } from '#platform/config.ts';
import { startLocalStore, type LocalStore } from '#local/adapters.ts';

let dir: string;
let store: LocalStore;
let doc: DynamoDBDocumentClient;
let table: string;
let n = 0;

const key = () => ({ pk: `TEST#conditional-write-${++n}`, sk: 'TEST' });
/** Puts `item` only where nothing is stored under its key yet. */
const putNew = (item: Record<string, unknown>) => () => doc.send(new PutCommand({ TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
const read = async (k: { pk: string; sk: string }) => (await doc.send(new GetCommand({ TableName: table, Key: k, ConsistentRead: true }))).Item;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tt-conditional-write-'));
  const config = loadConfig({ DATA_DIR: dir });
  store = await startLocalStore(config);
  doc = documentClient(store.client);
  table = config.tableName;
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('conditionalWrite', () => {
  it('answers what the write answers when its condition holds', async () => {
    const k = key();
    const answer = await conditionalWrite(
      async () => {
        await putNew({ ...k, v: 1 })();
        return 'written';
      },
      () => 'refused',
    );
    expect(answer).toBe('written');
    expect(await read(k)).toMatchObject({ v: 1 });
  });

  it('answers what `otherwise` gives when the condition fails, and changes nothing', async () => {
    const k = key();
    await putNew({ ...k, v: 1 })();
    expect(await conditionalWrite(putNew({ ...k, v: 2 }), () => null)).toBeNull();
    expect(await read(k)).toMatchObject({ v: 1 });
  });

  it('throws the domain error `otherwise` throws when the condition fails', async () => {
    const k = key();
    await putNew({ ...k, v: 1 })();
    const failure = await conditionalWrite(putNew({ ...k, v: 2 }), () => {
      throw new HostnameTakenError();
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HostnameTakenError);
  });

  it('throws any other store error as it was, without asking `otherwise`', async () => {
    let asked = false;
    const invalid = () =>
      doc.send(new UpdateCommand({ TableName: table, Key: key(), UpdateExpression: 'SET v = :missing', ConditionExpression: 'attribute_exists(pk)' }));
    const failure = await conditionalWrite(invalid, () => (asked = true)).catch((e: unknown) => e);
    expect((failure as Error).name).toBe('ValidationException');
    expect(asked).toBe(false);
  });
});

describe('conditionHeld', () => {
  it('is true when the condition held and false when it failed', async () => {
    const k = key();
    expect(await conditionHeld(putNew({ ...k, v: 1 }))).toBe(true);
    expect(await conditionHeld(putNew({ ...k, v: 2 }))).toBe(false);
    expect(await read(k)).toMatchObject({ v: 1 });
  });
});

describe('unlessConditionFails', () => {
  it('writes when the condition holds and does nothing, silently, when it fails', async () => {
    const k = key();
    await expect(unlessConditionFails(putNew({ ...k, v: 1 }))).resolves.toBeUndefined();
    await expect(unlessConditionFails(putNew({ ...k, v: 2 }))).resolves.toBeUndefined();
    expect(await read(k)).toMatchObject({ v: 1 });
  });

  it('still throws any other store error', async () => {
    const invalid = () => doc.send(new PutCommand({ TableName: 'no-such-table', Item: key(), ConditionExpression: 'attribute_not_exists(pk)' }));
    await expect(unlessConditionFails(invalid)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
