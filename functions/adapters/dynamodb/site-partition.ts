/**
 * Items under a site's partition (`SITE#<hostname>`) besides the site item, for the sites
 * (functions/adapters/dynamodb/sites.ts): listing and removing what a registration stored (a
 * delete, a lapse, a DNS claim's move).
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemTable } from './item-table.ts';
import { keys } from './table.ts';

type ItemKey = { pk: string; sk: string };

/** The keys of everything stored under a site partition except the site item (read consistently). */
export async function partitionItems({ doc, table }: ItemTable, pk: string): Promise<ItemKey[]> {
  const out: ItemKey[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    // (A filter expression may not name the sort key.)
    for (const it of page.Items ?? []) if (it.sk !== keys.site('').sk) out.push({ pk: it.pk as string, sk: it.sk as string });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Deletes these items, 25 a batch, retrying what the store left unprocessed. */
export async function deleteItems({ doc, table }: ItemTable, items: readonly ItemKey[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    const batch = items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    let pending: typeof batch | undefined = batch;
    for (let attempt = 0; pending && pending.length > 0 && attempt < 8; attempt++) {
      const r: { UnprocessedItems?: Record<string, unknown[]> } = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = r.UnprocessedItems?.[table] as typeof batch | undefined;
      if (pending?.length) await new Promise((res) => setTimeout(res, 2 ** attempt * 20));
    }
  }
}
