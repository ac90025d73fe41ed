/**
 * Share links (issue 40, part 5) in the registry's table: `SHARE#<id>` under
 * the site's partition (a site delete or the move that ends a registration
 * sweeps them), found by their slug's hash on gsi1 (`SHARESLUG#<sha256>`).
 * The lookup reads the index, then the item itself consistently, so a revoked
 * link is gone at once. Password guesses are counted on the link's item per
 * minute (`guess_window`, `guess_count`) by conditional updates.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SiteRecords } from '#ports/goals.ts';
import type { ShareLinkRecord, ShareLinks } from '#ports/share-links.ts';
import { conditionHeld } from './conditional-write.ts';
import { queryIndex, type ItemTable } from './item-table.ts';
import { DynamoSiteRecords } from './site-records.ts';
import { StoredSecret } from './stored-secret.ts';
import { keys } from './table.ts';

const FIELDS = ['id', 'site', 'owner_uid', 'label', 'slug_hash', 'password_hash', 'created_at'] as const;

export class DynamoShareLinks implements ShareLinks {
  readonly links: SiteRecords<ShareLinkRecord>;
  private readonly secret: StoredSecret;

  constructor(private readonly items: ItemTable) {
    this.links = new DynamoSiteRecords<ShareLinkRecord>(items, keys.shareLinkPrefix, [...FIELDS], (link) => ({ gsi1pk: keys.shareSlugHash(link.slug_hash), gsi1sk: 'SHARE' }));
    this.secret = new StoredSecret(items, keys.shareSecret);
  }

  async findBySlugHash(slugHash: string): Promise<ShareLinkRecord | null> {
    const [listed] = await queryIndex(this.items, keys.shareSlugHash(slugHash));
    if (!listed) return null;
    const link = await this.links.get(String(listed.site), String(listed.id));
    return link && link.slug_hash === slugHash ? link : null;
  }

  async takeGuess(site: string, id: string, window: number, max: number): Promise<boolean> {
    const Key = { pk: keys.site(site).pk, sk: `${keys.shareLinkPrefix}${id}` };
    const update = (UpdateExpression: string, ConditionExpression: string, values: Record<string, number>) =>
      conditionHeld(() => this.items.doc.send(new UpdateCommand({ TableName: this.items.table, Key, UpdateExpression, ConditionExpression, ExpressionAttributeValues: values })));
    // The same minute: one more while under the limit; a later minute starts the count again.
    if (await update('SET guess_count = guess_count + :one', 'attribute_exists(pk) AND guess_window = :w AND guess_count < :max', { ':one': 1, ':w': window, ':max': max })) return true;
    return update('SET guess_window = :w, guess_count = :one', 'attribute_exists(pk) AND (attribute_not_exists(guess_window) OR guess_window < :w)', { ':one': 1, ':w': window });
  }

  grantSecret(): Promise<Buffer> {
    return this.secret.get();
  }

}
