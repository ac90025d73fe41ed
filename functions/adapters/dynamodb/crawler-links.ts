/**
 * Crawler links (issue 41) in the registry's table: `CRAWLERS_LINK` under the
 * site's partition (a site delete or a registration's move sweeps it and its
 * sealed token), listed on gsi1 under `CRAWLER_LINKS` for the hourly sync.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CrawlerLinkRecord, CrawlerLinks, CrawlerSyncResult } from '#ports/crawler-links.ts';
import { conditionHeld } from './conditional-write.ts';
import { queryIndex, type ItemTable } from './item-table.ts';
import { keys } from './table.ts';

const FIELDS = ['site', 'registration', 'owner_uid', 'zone_id', 'zone_name', 'sealed_token', 'linked_at', 'last_sync_at', 'last_error', 'synced_through'] as const;

function toLink(item: Record<string, unknown>): CrawlerLinkRecord {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) out[f] = item[f] ?? null;
  return out as unknown as CrawlerLinkRecord;
}

export class DynamoCrawlerLinks implements CrawlerLinks {
  constructor(private readonly items: ItemTable) {}

  async get(site: string): Promise<CrawlerLinkRecord | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.crawlerLink(site), ConsistentRead: true }));
    return r.Item ? toLink(r.Item) : null;
  }

  async put(link: CrawlerLinkRecord): Promise<void> {
    await this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: { ...keys.crawlerLink(link.site), gsi1pk: keys.crawlerLinks, gsi1sk: link.site, ...link } }));
  }

  async delete(site: string): Promise<boolean> {
    const r = await this.items.doc.send(new DeleteCommand({ TableName: this.items.table, Key: keys.crawlerLink(site), ReturnValues: 'ALL_OLD' }));
    return r.Attributes !== undefined;
  }

  async recordSync(site: string, zoneId: string, result: CrawlerSyncResult): Promise<void> {
    await conditionHeld(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.crawlerLink(site),
          UpdateExpression: 'SET last_sync_at = :at, last_error = :error, synced_through = :through',
          ConditionExpression: 'attribute_exists(pk) AND zone_id = :zone',
          ExpressionAttributeValues: { ':at': result.last_sync_at, ':error': result.last_error, ':through': result.synced_through, ':zone': zoneId },
        }),
      ),
    );
  }

  async list(): Promise<CrawlerLinkRecord[]> {
    return (await queryIndex(this.items, keys.crawlerLinks)).map(toLink);
  }
}
