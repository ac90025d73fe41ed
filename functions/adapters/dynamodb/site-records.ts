/**
 * One kind of record under a site's partition (`<prefix><id>`), so a site
 * delete or the move that ends a registration sweeps it: goals and funnels
 * (issue 37), e-mail reports (issue 38). Creation counts the site's records first; the count is not
 * atomic with the write (two creations at once may both pass at the limit:
 * a bound on clutter, not a security rule).
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SiteRecords } from '#ports/goals.ts';
import { conditionalWrite, conditionHeld } from './conditional-write.ts';
import { querySitePartition, type ItemTable } from './item-table.ts';
import { keys } from './table.ts';

export class DynamoSiteRecords<T extends { id: string; site: string }> implements SiteRecords<T> {
  /**
   * `fields`: the attributes a record has (anything else on the item is the table's); `index`: the
   * gsi1 keys an item carries, from its record (none: it is not listed there).
   */
  constructor(
    private readonly items: ItemTable,
    private readonly prefix: string,
    private readonly fields: readonly (keyof T & string)[],
    private readonly index: (record: T) => { gsi1pk: string; gsi1sk: string } | null = () => null,
  ) {}

  /** A record's item: its key, its gsi1 keys when it has them, its fields. */
  private itemOf(record: T) {
    return { ...this.key(record.site, record.id), ...this.index(record), ...record };
  }

  private key(site: string, id: string) {
    return { pk: keys.site(site).pk, sk: `${this.prefix}${id}` };
  }

  private recordOf(item: Record<string, unknown> | undefined): T | null {
    return item ? (Object.fromEntries(this.fields.map((f) => [f, item[f] ?? null])) as T) : null;
  }

  async create(record: T, maxPerSite: number): Promise<boolean> {
    if ((await this.list(record.site)).length >= maxPerSite) return false;
    await this.items.doc.send(
      new PutCommand({ TableName: this.items.table, Item: this.itemOf(record), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  }

  async list(site: string): Promise<T[]> {
    return (await querySitePartition(this.items, site, this.prefix)).map((i) => this.recordOf(i) as T);
  }

  async get(site: string, id: string): Promise<T | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: this.key(site, id), ConsistentRead: true }));
    return this.recordOf(r.Item);
  }

  /** The whole record written again, on condition that it still exists (a delete in between wins). */
  async update(site: string, id: string, patch: Partial<Omit<T, 'id' | 'site' | 'created_at'>>): Promise<T | null> {
    const current = await this.get(site, id);
    if (!current) return null;
    const changed = { ...current, ...patch, id, site } as T;
    return conditionalWrite(
      async () => {
        await this.items.doc.send(
          new PutCommand({ TableName: this.items.table, Item: this.itemOf(changed), ConditionExpression: 'attribute_exists(pk)' }),
        );
        return changed;
      },
      () => null,
    );
  }

  delete(site: string, id: string): Promise<boolean> {
    return conditionHeld(() =>
      this.items.doc.send(new DeleteCommand({ TableName: this.items.table, Key: this.key(site, id), ConditionExpression: 'attribute_exists(pk)' })),
    );
  }
}
