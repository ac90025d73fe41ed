/**
 * Site API keys (DESIGN.md §5 `SKEY#`): one item per key under its site's
 * partition (`SKEY#<id>`), so a site delete or the move that ends a
 * registration sweeps them with the rest; found by their secret's hash
 * through gsi1 (`SKEY#<sha256>`). A rotation replaces the hash in place.
 */
import { GetCommand, PutCommand, UpdateCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { SiteApiKeyRecord, SiteApiKeys } from '#ports/site-api-keys.ts';
import { conditionalWrite, unlessConditionFails } from './conditional-write.ts';
import { queryIndex, querySitePartition, type ItemTable } from './item-table.ts';
import { keys } from './table.ts';

const FIELDS = ['id', 'site', 'registration', 'owner_uid', 'secret_hash', 'label', 'created_at', 'rotated_at', 'last_used_at'] as const;

function toSiteApiKey(item: Record<string, unknown> | undefined): SiteApiKeyRecord | null {
  if (!item) return null;
  return Object.fromEntries(FIELDS.map((f) => [f, item[f] ?? null])) as unknown as SiteApiKeyRecord;
}

export class DynamoSiteApiKeys implements SiteApiKeys {
  constructor(private readonly items: ItemTable) {}

  async createSiteApiKey(key: SiteApiKeyRecord, maxPerSite: number): Promise<boolean> {
    // Not atomic with the count: two creations at once may both pass at the limit (a bound on clutter, not a security rule).
    if ((await this.listSiteApiKeys(key.site)).length >= maxPerSite) return false;
    await this.items.doc.send(
      new PutCommand({
        TableName: this.items.table,
        Item: { ...keys.siteApiKey(key.site, key.id), gsi1pk: keys.siteApiKeyHash(key.secret_hash), gsi1sk: 'SKEY', ...key },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  }

  async findSiteApiKey(secretHash: string): Promise<SiteApiKeyRecord | null> {
    const [item] = await queryIndex(this.items, keys.siteApiKeyHash(secretHash));
    return toSiteApiKey(item);
  }

  async listSiteApiKeys(site: string): Promise<SiteApiKeyRecord[]> {
    return (await querySitePartition(this.items, site, keys.siteApiKeyPrefix)).map((item) => toSiteApiKey(item) as SiteApiKeyRecord);
  }

  async rotateSiteApiKey(site: string, id: string, newSecretHash: string, at: string): Promise<{ key: SiteApiKeyRecord; previousHash: string } | null> {
    const r = await conditionalWrite(
      () =>
        this.items.doc.send(
          new UpdateCommand({
            TableName: this.items.table,
            Key: keys.siteApiKey(site, id),
            UpdateExpression: 'SET secret_hash = :hash, gsi1pk = :lookup, rotated_at = :at',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':hash': newSecretHash, ':lookup': keys.siteApiKeyHash(newSecretHash), ':at': at },
            ReturnValues: 'ALL_OLD',
          }),
        ),
      () => null,
    );
    const before = r ? toSiteApiKey(r.Attributes) : null;
    return before && { key: { ...before, secret_hash: newSecretHash, rotated_at: at }, previousHash: before.secret_hash };
  }

  async deleteSiteApiKey(site: string, id: string): Promise<SiteApiKeyRecord | null> {
    const r = await conditionalWrite(
      () =>
        this.items.doc.send(
          new DeleteCommand({ TableName: this.items.table, Key: keys.siteApiKey(site, id), ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }),
        ),
      () => null,
    );
    return r ? toSiteApiKey(r.Attributes) : null;
  }

  async touchSiteApiKey(site: string, id: string, at: string): Promise<void> {
    await unlessConditionFails(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.siteApiKey(site, id),
          UpdateExpression: 'SET last_used_at = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
  }

  /** One key by id (tests and the handler's 404). */
  async getSiteApiKey(site: string, id: string): Promise<SiteApiKeyRecord | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.siteApiKey(site, id), ConsistentRead: true }));
    return toSiteApiKey(r.Item);
  }
}
