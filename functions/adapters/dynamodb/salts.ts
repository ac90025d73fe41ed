/** The daily salts of the visitor hash (`SALTS` / `DAY#<YYYY-MM-DD>`), removed by the store's TTL (`expires_at`) if rotation never runs. */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DailySalts } from '#ports/registry.ts';
import { conditionHeld } from './conditional-write.ts';
import type { ItemTable } from './item-table.ts';
import { keys } from './table.ts';

export class DynamoDailySalts implements DailySalts {
  constructor(private readonly items: ItemTable) {}

  async getOrCreateDailySalt(day: string, candidate: string, expiresAt: number): Promise<string> {
    const { doc, table } = this.items;
    const stored = await conditionHeld(() =>
      doc.send(new PutCommand({ TableName: table, Item: { ...keys.salt(day), salt: candidate, expires_at: expiresAt }, ConditionExpression: 'attribute_not_exists(pk)' })),
    );
    if (stored) return candidate;
    const r = await doc.send(new GetCommand({ TableName: table, Key: keys.salt(day), ConsistentRead: true }));
    return r.Item?.salt as string;
  }

  async deleteSaltsBefore(day: string): Promise<number> {
    const { doc, table } = this.items;
    const r = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND sk < :before',
        ExpressionAttributeValues: { ':pk': keys.salts, ':before': `DAY#${day}` },
        ConsistentRead: true,
      }),
    );
    const old = r.Items ?? [];
    for (const item of old) await doc.send(new DeleteCommand({ TableName: table, Key: { pk: item.pk, sk: item.sk } }));
    return old.length;
  }
}
