/**
 * LiveStreams on the registry's table: a ticket is an item by its hash that a
 * conditional delete takes once; an account's stream slots are items
 * `LIVE#<uid>` / `SLOT#<n>`, each held by a conditional put while free or
 * expired. `expires_at` is the table's TTL attribute: what nobody cleared
 * goes away by itself.
 */
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LiveStreams, LiveTicket } from '#ports/live-streams.ts';
import { conditionHeld, conditionalWrite, unlessConditionFails } from './conditional-write.ts';
import type { ItemTable } from './item-table.ts';
import { keys } from './table.ts';

/** `stream` is one of DynamoDB's reserved words: expressions name it through a placeholder. */
const STREAM_NAME = { '#stream': 'stream' };

export class DynamoLiveStreams implements LiveStreams {
  constructor(private readonly items: ItemTable) {}

  async putTicket(hash: string, ticket: LiveTicket, expiresAt: number): Promise<void> {
    const { doc, table } = this.items;
    await doc.send(new PutCommand({ TableName: table, Item: { ...keys.liveTicket(hash), uid: ticket.uid, hostname: ticket.hostname, expires_at: expiresAt }, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  takeTicket(hash: string, now: number): Promise<LiveTicket | null> {
    const { doc, table } = this.items;
    return conditionalWrite(
      async () => {
        const r = await doc.send(
          new DeleteCommand({
            TableName: table,
            Key: keys.liveTicket(hash),
            ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
            ExpressionAttributeValues: { ':now': now },
            ReturnValues: 'ALL_OLD',
          }),
        );
        const { uid, hostname } = r.Attributes ?? {};
        return typeof uid === 'string' && typeof hostname === 'string' ? { uid, hostname } : null;
      },
      () => null,
    );
  }

  async heldSlots(uid: string, now: number): Promise<number> {
    const { doc, table } = this.items;
    const r = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'expires_at > :now',
        ExpressionAttributeValues: { ':pk': keys.liveSlot(uid, 0).pk, ':now': now },
        ConsistentRead: true,
      }),
    );
    return r.Count ?? 0;
  }

  async claimSlot(uid: string, stream: string, slots: number, now: number, until: number): Promise<number | null> {
    const { doc, table } = this.items;
    for (let slot = 0; slot < slots; slot++) {
      const held = await conditionHeld(() =>
        doc.send(
          new PutCommand({
            TableName: table,
            Item: { ...keys.liveSlot(uid, slot), stream, expires_at: until },
            ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
            ExpressionAttributeValues: { ':now': now },
          }),
        ),
      );
      if (held) return slot;
    }
    return null;
  }

  renewSlot(uid: string, slot: number, stream: string, until: number): Promise<boolean> {
    const { doc, table } = this.items;
    return conditionHeld(() =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.liveSlot(uid, slot),
          UpdateExpression: 'SET expires_at = :until',
          ConditionExpression: '#stream = :stream',
          ExpressionAttributeNames: STREAM_NAME,
          ExpressionAttributeValues: { ':until': until, ':stream': stream },
        }),
      ),
    );
  }

  async releaseSlot(uid: string, slot: number, stream: string): Promise<void> {
    const { doc, table } = this.items;
    await unlessConditionFails(() =>
      doc.send(new DeleteCommand({ TableName: table, Key: keys.liveSlot(uid, slot), ConditionExpression: '#stream = :stream', ExpressionAttributeNames: STREAM_NAME, ExpressionAttributeValues: { ':stream': stream } })),
    );
  }
}
