/**
 * Search Console links and consent states in the registry's table: a link is
 * `GSC` under the site's partition (a site delete or a move sweeps it with
 * its sealed refresh token), listed on gsi1 (`GSC_LINKS`) for the daily sync;
 * a consent's state is kept by its hash until `expires_at` (the table's TTL)
 * and taken once by a conditional delete.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { OAuthStateRecord, SearchLinkRecord, SearchLinks } from '#ports/search-console.ts';
import { conditionalWrite, conditionHeld } from './conditional-write.ts';
import { queryIndex, type ItemTable } from './item-table.ts';
import { keys } from './table.ts';

const FIELDS = ['site', 'owner_uid', 'property', 'sealed_refresh_token', 'linked_at', 'last_sync_at', 'last_error', 'synced_through'] as const;

function linkOf(item: Record<string, unknown>): SearchLinkRecord {
  const text = (k: string) => (typeof item[k] === 'string' ? (item[k] as string) : null);
  return {
    site: String(item.site),
    owner_uid: String(item.owner_uid),
    property: text('property'),
    sealed_refresh_token: String(item.sealed_refresh_token),
    linked_at: String(item.linked_at),
    last_sync_at: text('last_sync_at'),
    last_error: text('last_error'),
    synced_through: text('synced_through'),
  };
}

export class DynamoSearchLinks implements SearchLinks {
  constructor(private readonly items: ItemTable) {}

  async getLink(site: string): Promise<SearchLinkRecord | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.searchLink(site), ConsistentRead: true }));
    return r.Item ? linkOf(r.Item) : null;
  }

  async putLink(link: SearchLinkRecord): Promise<void> {
    const item: Record<string, unknown> = { ...keys.searchLink(link.site), gsi1pk: keys.searchLinks, gsi1sk: link.site };
    for (const f of FIELDS) item[f] = link[f];
    await this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: item }));
  }

  updateLink(site: string, patch: Partial<Pick<SearchLinkRecord, 'property' | 'last_sync_at' | 'last_error' | 'synced_through'>>): Promise<boolean> {
    const entries = Object.entries(patch);
    if (entries.length === 0) return Promise.resolve(true);
    return conditionHeld(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.searchLink(site),
          UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
          ExpressionAttributeValues: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
        }),
      ),
    );
  }

  async deleteLink(site: string): Promise<void> {
    await this.items.doc.send(new DeleteCommand({ TableName: this.items.table, Key: keys.searchLink(site) }));
  }

  async listLinks(): Promise<SearchLinkRecord[]> {
    return (await queryIndex(this.items, keys.searchLinks)).map(linkOf).filter((l) => l.property !== null);
  }

  async createState(stateHash: string, state: OAuthStateRecord, expiresAt: number): Promise<void> {
    await this.items.doc.send(
      new PutCommand({ TableName: this.items.table, Item: { ...keys.oauthState(stateHash), ...state, expires_at: expiresAt }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  }

  consumeState(stateHash: string, nowSeconds: number): Promise<OAuthStateRecord | null> {
    return conditionalWrite(
      async () => {
        const r = await this.items.doc.send(
          new DeleteCommand({
            TableName: this.items.table,
            Key: keys.oauthState(stateHash),
            ConditionExpression: 'attribute_exists(pk) AND expires_at > :now',
            ExpressionAttributeValues: { ':now': nowSeconds },
            ReturnValues: 'ALL_OLD',
          }),
        );
        const a = r.Attributes;
        return a ? { sub: String(a.sub), site: String(a.site), verifier: String(a.verifier) } : null;
      },
      () => null,
    );
  }
}
