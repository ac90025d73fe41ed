/**
 * Registry over DynamoDB (and dynalite locally). Limits are enforced with
 * conditional writes on the account item: a slot is reserved first and given
 * back if the second write fails, so concurrent requests never exceed a limit.
 * (dynalite has no TransactWriteItems, and this sequence needs none.)
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type {
  DynamoDBDocumentClient} from '@aws-sdk/lib-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ClaimRecord, CreateSiteResult, ManagementKeyRecord, MoveSiteResult, Registry, SitePatch, SiteRecord, StartClaimResult } from '#ports/registry.ts';
import type { SiteCheck } from '#domain/site-verification.ts';
import { isLapsedRegistration } from '#domain/site.ts';
import { GSI1, keys } from './table.ts';
import { documentClient, isConditionFailure } from './document-client.ts';
import { SITE_PROJECTION, toKey, toSite } from './registry-items.ts';
import * as partition from './site-partition.ts';

export class DynamoRegistry implements Registry {
  private readonly doc: DynamoDBDocumentClient;
  /** The client and table, for the item helpers of site-partition.ts. */
  private readonly items: partition.ItemTable;

  constructor(
    client: DynamoDBClient,
    private readonly table: string,
  ) {
    this.doc = documentClient(client);
    this.items = { doc: this.doc, table };
  }

  /** The site's fields only (a projection): the collector may read no other attribute of the items under a site. */
  async getSite(hostname: string): Promise<SiteRecord | null> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.site(hostname), ConsistentRead: true, ...SITE_PROJECTION }));
    return toSite(r.Item);
  }

  async createSite(site: SiteRecord, maxSitesPerAccount: number, lapsedBefore: string): Promise<CreateSiteResult> {
    const existing = await this.getSite(site.hostname);
    if (existing) {
      if (existing.owner_uid === site.owner_uid) return { outcome: 'exists', site: existing };
      if (!isLapsedRegistration(existing, lapsedBefore)) return { outcome: 'taken' };
    }
    if (!(await this.reserve(site.owner_uid, 'site_count', maxSitesPerAccount))) return { outcome: 'limit' };
    try {
      // Losing this race (verified or removed meanwhile) is fine: the conditional put decides.
      if (existing) await this.removeLapsed(existing);
      await this.putSite(site, { ConditionExpression: 'attribute_not_exists(pk)' });
      return { outcome: 'created', site };
    } catch (e) {
      await this.release(site.owner_uid, 'site_count');
      if (!isConditionFailure(e)) throw e;
      // Lost a race for the same hostname: answer as if we had come second.
      const winner = await this.getSite(site.hostname);
      if (winner && winner.owner_uid === site.owner_uid) return { outcome: 'exists', site: winner };
      return { outcome: 'taken' };
    }
  }

  /** Writes the site item (with its place in the owner's list) under `condition`. */
  private async putSite(site: SiteRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...keys.site(site.hostname), gsi1pk: keys.sitesOf(site.owner_uid), gsi1sk: `${site.created_at}#${site.hostname}`, ...site },
        ...condition,
      }),
    );
  }

  /**
   * Removes a lapsed registration as its owner's delete would, only if it is
   * still that very registration (its verify token is new for each one) and
   * still unverified: a verification or a fresh registration in between wins.
   */
  private async removeLapsed(site: SiteRecord): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: keys.site(site.hostname),
          ConditionExpression: 'owner_uid = :owner AND verify_token = :token AND (attribute_not_exists(verified_at) OR verified_at = :null)',
          ExpressionAttributeValues: { ':owner': site.owner_uid, ':token': site.verify_token, ':null': null },
        }),
      );
    } catch (e) {
      if (isConditionFailure(e)) return;
      throw e;
    }
    await this.release(site.owner_uid, 'site_count');
    await this.deletePartition(keys.site(site.hostname).pk);
  }

  async listSites(ownerUid: string): Promise<SiteRecord[]> {
    const items = await this.queryIndex(keys.sitesOf(ownerUid));
    return items.map((i) => toSite(i) as SiteRecord);
  }

  async countSites(ownerUid: string): Promise<number> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.account(ownerUid), ConsistentRead: true }));
    return Number(r.Item?.site_count ?? 0);
  }

  async updateSite(hostname: string, ownerUid: string, patch: SitePatch): Promise<SiteRecord | null> {
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
    if (entries.length === 0) {
      const site = await this.getSite(hostname);
      return site && site.owner_uid === ownerUid ? site : null;
    }
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':owner': ownerUid };
    const sets = entries.map(([k, v], i) => {
      names[`#f${i}`] = k;
      values[`:v${i}`] = v;
      return `#f${i} = :v${i}`;
    });
    try {
      const r = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.site(hostname),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk) AND owner_uid = :owner',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toSite(r.Attributes);
    } catch (e) {
      if (isConditionFailure(e)) return null;
      throw e;
    }
  }

  async markVerified(hostname: string, at: string): Promise<SiteRecord | null> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.site(hostname),
          // The first verification time is kept; registration stores it as null.
          UpdateExpression: 'SET verified_at = :at',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(verified_at) OR verified_at = :null)',
          ExpressionAttributeValues: { ':at': at, ':null': null },
        }),
      );
      // Read back rather than ReturnValues ALL_NEW, which the collector may not ask for (lib/api.ts).
      return await this.getSite(hostname);
    } catch (e) {
      if (isConditionFailure(e)) return this.getSite(hostname);
      throw e;
    }
  }

  async recordCheck(hostname: string, check: SiteCheck): Promise<SiteRecord | null> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.site(hostname),
          UpdateExpression: 'SET last_check = :c',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':c': check },
        }),
      );
      return await this.getSite(hostname);
    } catch (e) {
      if (isConditionFailure(e)) return null;
      throw e;
    }
  }

  async deleteSite(hostname: string, ownerUid: string): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: keys.site(hostname),
          ConditionExpression: 'attribute_exists(pk) AND owner_uid = :owner',
          ExpressionAttributeValues: { ':owner': ownerUid },
        }),
      );
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
    await this.release(ownerUid, 'site_count');
    await this.deletePartition(keys.site(hostname).pk);
    return true;
  }

  /**
   * Everything stored under the site (jobs, goals, alert rules, key pointers…)
   * goes with it. The site item itself is left to its conditional delete: a
   * registration made meanwhile by someone else must not be swept away.
   */
  private async deletePartition(pk: string): Promise<void> {
    await partition.deleteItems(this.items, await partition.partitionItems(this.items, pk));
  }

  readonly startClaim = (claim: ClaimRecord, now: string): Promise<StartClaimResult> => partition.startClaim(this.items, claim, now);

  readonly getClaim = (hostname: string, claimantUid: string): Promise<ClaimRecord | null> => partition.getClaim(this.items, hostname, claimantUid);

  async moveSite(from: SiteRecord, to: SiteRecord, maxSitesPerAccount: number): Promise<MoveSiteResult> {
    if (!(await this.reserve(to.owner_uid, 'site_count', maxSitesPerAccount))) return { outcome: 'limit' };
    // What the old registration stored, listed before the move: the sweep after it must not take what the new owner stores.
    const stored = await partition.partitionItems(this.items, keys.site(from.hostname).pk);
    try {
      await this.putSite(to, {
        ConditionExpression: 'owner_uid = :owner AND verify_token = :token',
        ExpressionAttributeValues: { ':owner': from.owner_uid, ':token': from.verify_token },
      });
    } catch (e) {
      await this.release(to.owner_uid, 'site_count');
      if (!isConditionFailure(e)) throw e;
      return { outcome: 'changed', site: await this.getSite(from.hostname) };
    }
    await this.release(from.owner_uid, 'site_count');
    await partition.deleteItems(this.items, stored);
    return { outcome: 'moved', site: to };
  }

  async createManagementKey(key: ManagementKeyRecord, maxActive: number): Promise<boolean> {
    if (!(await this.reserve(key.owner_uid, 'key_count', maxActive))) return false;
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.managementKey(key.secret_hash), gsi1pk: keys.managementKeysOf(key.owner_uid), gsi1sk: `${key.created_at}#${key.id}`, ...key },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (e) {
      await this.release(key.owner_uid, 'key_count');
      throw e;
    }
  }

  async findManagementKey(secretHash: string): Promise<ManagementKeyRecord | null> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.managementKey(secretHash), ConsistentRead: true }));
    return toKey(r.Item);
  }

  async listManagementKeys(ownerUid: string): Promise<ManagementKeyRecord[]> {
    const items = await this.queryIndex(keys.managementKeysOf(ownerUid));
    return items.map((i) => toKey(i) as ManagementKeyRecord);
  }

  async revokeManagementKey(ownerUid: string, id: string, at: string): Promise<ManagementKeyRecord | null> {
    const key = (await this.listManagementKeys(ownerUid)).find((k) => k.id === id);
    if (!key || key.revoked_at) return null;
    try {
      const r = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.managementKey(key.secret_hash),
          UpdateExpression: 'SET revoked_at = :at',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(revoked_at) OR revoked_at = :null)',
          ExpressionAttributeValues: { ':at': at, ':null': null },
          ReturnValues: 'ALL_NEW',
        }),
      );
      await this.release(ownerUid, 'key_count');
      return toKey(r.Attributes);
    } catch (e) {
      if (isConditionFailure(e)) return null;
      throw e;
    }
  }

  async touchManagementKey(secretHash: string, at: string): Promise<void> {
    await this.doc
      .send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.managementKey(secretHash),
          UpdateExpression: 'SET last_used_at = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at },
        }),
      )
      .catch((e) => {
        if (!isConditionFailure(e)) throw e;
      });
  }

  async recordSiteSeen(hostname: string, at: string): Promise<void> {
    await this.doc
      .send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.site(hostname),
          UpdateExpression: 'SET last_seen_at = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at },
        }),
      )
      .catch((e) => {
        if (!isConditionFailure(e)) throw e;
      });
  }

  async getOrCreateDailySalt(day: string, candidate: string, expiresAt: number): Promise<string> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...keys.salt(day), salt: candidate, expires_at: expiresAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return candidate;
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: keys.salt(day), ConsistentRead: true }));
    return r.Item?.salt as string;
  }

  async deleteSaltsBefore(day: string): Promise<number> {
    const r = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk < :before',
        ExpressionAttributeValues: { ':pk': keys.salts, ':before': `DAY#${day}` },
        ConsistentRead: true,
      }),
    );
    const old = r.Items ?? [];
    for (const item of old) await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk: item.pk, sk: item.sk } }));
    return old.length;
  }

  private async queryIndex(gsi1pk: string): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: GSI1,
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': gsi1pk },
          ExclusiveStartKey: start,
        }),
      );
      out.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /** Takes one unit of an account counter if it is below max. */
  private async reserve(uid: string, counter: 'site_count' | 'key_count', max: number): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.account(uid),
          UpdateExpression: 'SET #c = if_not_exists(#c, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(#c) OR #c < :max',
          ExpressionAttributeNames: { '#c': counter },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': max },
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  private async release(uid: string, counter: 'site_count' | 'key_count'): Promise<void> {
    await this.doc
      .send(
        new UpdateCommand({
          TableName: this.table,
          Key: keys.account(uid),
          UpdateExpression: 'SET #c = #c - :one',
          ConditionExpression: '#c > :zero',
          ExpressionAttributeNames: { '#c': counter },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        }),
      )
      .catch((e) => {
        if (!isConditionFailure(e)) throw e;
      });
  }
}
