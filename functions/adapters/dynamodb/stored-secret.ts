/**
 * A 32-byte signing secret kept in the registry (the unsubscribe links', the
 * share grants'): made on first use by a conditional put, so every instance
 * ends up with the first writer's; read once per instance.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionalWrite } from './conditional-write.ts';
import type { ItemTable } from './item-table.ts';

export class StoredSecret {
  private secret: Promise<Buffer> | null = null;

  constructor(
    private readonly items: ItemTable,
    private readonly key: { pk: string; sk: string },
  ) {}

  get(): Promise<Buffer> {
    this.secret ??= this.read().catch((e: unknown) => {
      this.secret = null;
      throw e;
    });
    return this.secret;
  }

  private async stored(): Promise<string | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: this.key, ConsistentRead: true }));
    return r.Item ? String(r.Item.secret) : null;
  }

  /** The stored secret, or a new one stored first (the first writer's wins). */
  private async read(): Promise<Buffer> {
    const stored = await this.stored();
    if (stored) return Buffer.from(stored, 'base64');
    const secret = randomBytes(32).toString('base64');
    const made = await conditionalWrite(
      () => this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: { ...this.key, secret }, ConditionExpression: 'attribute_not_exists(pk)' })).then(() => secret),
      async () => String(await this.stored()),
    );
    return Buffer.from(made, 'base64');
  }
}
