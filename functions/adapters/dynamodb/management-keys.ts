/**
 * Management keys (`MKEY#<secret hash>`), listed per owner on gsi1
 * (`MKEYS#<uid>`). The limit of active keys is the account's `key_count`
 * (account-counters.ts): taken on create, given back on revoke.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ManagementKeyRecord, ManagementKeys } from '#ports/registry.ts';
import { AccountCounters } from './account-counters.ts';
import { conditionalWrite, unlessConditionFails } from './conditional-write.ts';
import { queryIndex, type ItemTable } from './item-table.ts';
import { toKey } from './registry-items.ts';
import { keys } from './table.ts';

export class DynamoManagementKeys implements ManagementKeys {
  private readonly counters: AccountCounters;

  constructor(private readonly items: ItemTable) {
    this.counters = new AccountCounters(items);
  }

  async createManagementKey(key: ManagementKeyRecord, maxActive: number): Promise<boolean> {
    if (!(await this.counters.reserve(key.owner_uid, 'key_count', maxActive))) return false;
    // A key's secret is new: a failed condition here is an error, not a "no".
    return this.counters.keepFor(key.owner_uid, 'key_count', async () => {
      await this.items.doc.send(
        new PutCommand({
          TableName: this.items.table,
          Item: { ...keys.managementKey(key.secret_hash), gsi1pk: keys.managementKeysOf(key.owner_uid), gsi1sk: `${key.created_at}#${key.id}`, ...key },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    });
  }

  async findManagementKey(secretHash: string): Promise<ManagementKeyRecord | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.managementKey(secretHash), ConsistentRead: true }));
    return toKey(r.Item);
  }

  async listManagementKeys(ownerUid: string): Promise<ManagementKeyRecord[]> {
    const items = await queryIndex(this.items, keys.managementKeysOf(ownerUid));
    return items.map((i) => toKey(i) as ManagementKeyRecord);
  }

  async revokeManagementKey(ownerUid: string, id: string, at: string): Promise<ManagementKeyRecord | null> {
    const key = (await this.listManagementKeys(ownerUid)).find((k) => k.id === id);
    if (!key || key.revoked_at) return null;
    const r = await conditionalWrite(
      () =>
        this.items.doc.send(
          new UpdateCommand({
            TableName: this.items.table,
            Key: keys.managementKey(key.secret_hash),
            UpdateExpression: 'SET revoked_at = :at',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(revoked_at) OR revoked_at = :null)',
            ExpressionAttributeValues: { ':at': at, ':null': null },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      () => null,
    );
    if (!r) return null;
    await this.counters.release(ownerUid, 'key_count');
    return toKey(r.Attributes);
  }

  async touchManagementKey(secretHash: string, at: string): Promise<void> {
    await unlessConditionFails(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.managementKey(secretHash),
          UpdateExpression: 'SET last_used_at = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
  }
}
