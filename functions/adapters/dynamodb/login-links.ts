/** LoginLinks on the registry's table: a conditional delete makes each link usable once. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { LoginLinks } from '#ports/login-links.ts';
import { conditionalWrite } from './conditional-write.ts';
import { documentClient } from './document-client.ts';
import { keys } from './table.ts';

export class DynamoLoginLinks implements LoginLinks {
  private readonly doc;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = documentClient(client);
  }

  async create(codeHash: string, sub: string, expiresAt: number): Promise<void> {
    // expires_at is the table's TTL attribute: a link nobody used goes away by itself.
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...keys.loginLink(codeHash), sub, expires_at: expiresAt }, ConditionExpression: 'attribute_not_exists(pk)' }));
  }

  async consume(codeHash: string, nowSeconds: number): Promise<string | null> {
    return conditionalWrite(
      async () => {
        const r = await this.doc.send(
          new DeleteCommand({
            TableName: this.table,
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
