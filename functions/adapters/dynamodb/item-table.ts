/** The registry's table as its adapters reach it: one document client over the table, and paged queries of it and of the gsi1 index. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './document-client.ts';
import { GSI1, keys } from './table.ts';

export interface ItemTable {
  doc: DynamoDBDocumentClient;
  table: string;
}

export const itemTable = (client: DynamoDBClient, table: string): ItemTable => ({ doc: documentClient(client), table });

/** Every item a query finds, page after page. */
async function queryAll({ doc, table }: ItemTable, input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new QueryCommand({ ...input, TableName: table, ExclusiveStartKey: start }));
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Every item listed under `gsi1pk` (an owner's sites or keys). */
export const queryIndex = (items: ItemTable, gsi1pk: string): Promise<Record<string, unknown>[]> =>
  queryAll(items, { IndexName: GSI1, KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': gsi1pk } });

/** Every item of a site's partition whose sort key starts with `prefix`, read consistently. */
export const querySitePartition = (items: ItemTable, site: string, prefix: string): Promise<Record<string, unknown>[]> =>
  queryAll(items, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.site(site).pk, ':prefix': prefix },
    ConsistentRead: true,
  });

/** Every item listed under `gsi1pk` whose gsi1 sort key is at most `bound` (digests due by a time). */
export const queryIndexUpTo = (items: ItemTable, gsi1pk: string, bound: string): Promise<Record<string, unknown>[]> =>
  queryAll(items, { IndexName: GSI1, KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk <= :bound', ExpressionAttributeValues: { ':pk': gsi1pk, ':bound': bound } });
