/**
 * The per-account limits (sites, management keys) as counters on the account
 * item. A slot is reserved by a conditional update before the write it is
 * for, and given back if that write does not happen, so concurrent requests
 * never exceed a limit. (dynalite has no TransactWriteItems, and this
 * sequence needs none.)
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionHeld, unlessConditionFails } from './conditional-write.ts';
import type { ItemTable } from './item-table.ts';
import { keys } from './table.ts';

export type AccountCounter = 'site_count' | 'key_count';

export class AccountCounters {
  constructor(private readonly items: ItemTable) {}

  async count(uid: string, counter: AccountCounter): Promise<number> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.account(uid), ConsistentRead: true }));
    return Number(r.Item?.[counter] ?? 0);
  }

  /** Takes one unit of an account counter if it is below max. */
  reserve(uid: string, counter: AccountCounter, max: number): Promise<boolean> {
    return conditionHeld(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.account(uid),
          UpdateExpression: 'SET #c = if_not_exists(#c, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(#c) OR #c < :max',
          ExpressionAttributeNames: { '#c': counter },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': max },
        }),
      ),
    );
  }

  async release(uid: string, counter: AccountCounter): Promise<void> {
    await unlessConditionFails(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.account(uid),
          UpdateExpression: 'SET #c = #c - :one',
          ConditionExpression: '#c > :zero',
          ExpressionAttributeNames: { '#c': counter },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        }),
      ),
    );
  }

  /** Runs the write a reserved slot is for; the slot is given back when the write answers false or throws. */
  async keepFor(uid: string, counter: AccountCounter, write: () => Promise<boolean>): Promise<boolean> {
    let written: boolean;
    try {
      written = await write();
    } catch (e) {
      await this.release(uid, counter);
      throw e;
    }
    if (!written) await this.release(uid, counter);
    return written;
  }
}
