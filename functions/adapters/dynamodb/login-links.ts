/**
 * The local sign-in on the registry's table: LoginLinks, each usable once by a conditional
 * delete, and the DashboardSessions a link starts. `expires_at` is the table's TTL attribute.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LoginLinks } from '#ports/login-links.ts';
import type { DashboardSessions } from '#ports/dashboard-sessions.ts';
import { conditionalWrite } from './conditional-write.ts';
import type { ItemTable } from './item-table.ts';
import { keys } from './table.ts';

export class DynamoLoginLinks implements LoginLinks {
  constructor(private readonly items: ItemTable) {}

  async create(codeHash: string, sub: string, expiresAt: number): Promise<void> {
    // expires_at is the table's TTL attribute: a link nobody used goes away by itself.
    await this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: { ...keys.loginLink(codeHash), sub, expires_at: expiresAt }, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async consume(codeHash: string, nowSeconds: number): Promise<string | null> {
    return conditionalWrite(
      async () => {
        const r = await this.items.doc.send(
          new DeleteCommand({
            TableName: this.items.table,
            Key: keys.loginLink(codeHash),
            ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
            ExpressionAttributeValues: { ':now': nowSeconds },
            ReturnValues: 'ALL_OLD',
          }),
        );
        return typeof r.Attributes?.sub === 'string' ? r.Attributes.sub : null;
      },
      () => null,
    );
  }
}

export class DynamoDashboardSessions implements DashboardSessions {
  constructor(private readonly items: ItemTable) {}

  async create(idHash: string, sub: string, expiresAt: number): Promise<void> {
    await this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: { ...keys.dashboardSession(idHash), sub, expires_at: expiresAt }, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async find(idHash: string, now: number): Promise<string | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.dashboardSession(idHash), ConsistentRead: true }));
    return typeof r.Item?.sub === 'string' && Number(r.Item.expires_at) > now ? r.Item.sub : null;
  }

  async delete(idHash: string): Promise<void> {
    await this.items.doc.send(new DeleteCommand({ TableName: this.items.table, Key: keys.dashboardSession(idHash) }));
  }
}
