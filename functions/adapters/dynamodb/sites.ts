/**
 * Site registrations (`SITE#<hostname>` / `SITE`), listed per owner on gsi1
 * (`SITES#<uid>`). The per-account limit is the account's `site_count`
 * (account-counters.ts); a registration's removal takes what it stored with it
 * (site-partition.ts).
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PurgeRun } from '#domain/data-retention/retention.ts';
import type { CreateSiteResult, MoveSiteResult, SitePatch, SiteRecord, SiteRegistry } from '#ports/registry.ts';
import type { SiteCheck } from '#domain/site-verification.ts';
import { isLapsedRegistration } from '#domain/site.ts';
import { AccountCounters } from './account-counters.ts';
import { conditionalWrite, conditionHeld } from './conditional-write.ts';
import { queryIndex, type ItemTable } from './item-table.ts';
import { SITE_PROJECTION, toSite } from './registry-items.ts';
import * as partition from './site-partition.ts';
import { keys } from './table.ts';

type SiteCondition = { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> };

export class DynamoSites implements SiteRegistry {
  private readonly counters: AccountCounters;

  constructor(private readonly items: ItemTable) {
    this.counters = new AccountCounters(items);
  }

  /** The site's fields only (a projection): the collector may read no other attribute of the items under a site. */
  async getSite(hostname: string): Promise<SiteRecord | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.site(hostname), ConsistentRead: true, ...SITE_PROJECTION }));
    return toSite(r.Item);
  }

  async createSite(site: SiteRecord, maxSitesPerAccount: number, lapsedBefore: string): Promise<CreateSiteResult> {
    const existing = await this.getSite(site.hostname);
    if (existing) {
      if (existing.owner_uid === site.owner_uid) return { outcome: 'exists', site: existing };
      if (!isLapsedRegistration(existing, lapsedBefore)) return { outcome: 'taken' };
    }
    if (!(await this.counters.reserve(site.owner_uid, 'site_count', maxSitesPerAccount))) return { outcome: 'limit' };
    const created = await this.counters.keepFor(site.owner_uid, 'site_count', async () => {
      // Losing this race (verified or removed meanwhile) is fine: the conditional put decides.
      if (existing) await this.removeLapsed(existing);
      return this.putSite(site, { ConditionExpression: 'attribute_not_exists(pk)' });
    });
    if (created) return { outcome: 'created', site };
    // Lost a race for the same hostname: answer as if we had come second.
    const winner = await this.getSite(site.hostname);
    if (winner && winner.owner_uid === site.owner_uid) return { outcome: 'exists', site: winner };
    return { outcome: 'taken' };
  }

  /** Writes the site item (with its place in the owner's list) under `condition`; false when it did not hold. */
  private putSite(site: SiteRecord, condition: SiteCondition): Promise<boolean> {
    return conditionHeld(() =>
      this.items.doc.send(
        new PutCommand({
          TableName: this.items.table,
          Item: { ...keys.site(site.hostname), gsi1pk: keys.sitesOf(site.owner_uid), gsi1sk: `${site.created_at}#${site.hostname}`, ...site },
          ...condition,
        }),
      ),
    );
  }

  /**
   * Removes a lapsed registration as its owner's delete would, only if it is
   * still that very registration (its verify token is new for each one) and
   * still unverified: a verification or a fresh registration in between wins.
   */
  private async removeLapsed(site: SiteRecord): Promise<void> {
    await this.removeRegistration(site.hostname, site.owner_uid, {
      ConditionExpression: 'owner_uid = :owner AND verify_token = :token AND (attribute_not_exists(verified_at) OR verified_at = :null)',
      ExpressionAttributeValues: { ':owner': site.owner_uid, ':token': site.verify_token, ':null': null },
    });
  }

  /** Deletes the site item under `condition`, then gives its owner's slot back and sweeps its partition; false when the condition failed. */
  private async removeRegistration(hostname: string, ownerUid: string, condition: SiteCondition): Promise<boolean> {
    const removed = await conditionHeld(() => this.items.doc.send(new DeleteCommand({ TableName: this.items.table, Key: keys.site(hostname), ...condition })));
    if (!removed) return false;
    await this.counters.release(ownerUid, 'site_count');
    await this.deletePartition(keys.site(hostname).pk);
    return true;
  }

  async listSites(ownerUid: string): Promise<SiteRecord[]> {
    const items = await queryIndex(this.items, keys.sitesOf(ownerUid));
    return items.map((i) => toSite(i) as SiteRecord);
  }

  countSites(ownerUid: string): Promise<number> {
    return this.counters.count(ownerUid, 'site_count');
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
    return conditionalWrite(
      async () => {
        const r = await this.items.doc.send(
          new UpdateCommand({
            TableName: this.items.table,
            Key: keys.site(hostname),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: 'attribute_exists(pk) AND owner_uid = :owner',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toSite(r.Attributes);
      },
      () => null,
    );
  }

  async markVerified(hostname: string, at: string): Promise<SiteRecord | null> {
    await this.updateSiteItem(hostname, {
      // The first verification time is kept; registration stores it as null.
      UpdateExpression: 'SET verified_at = :at',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(verified_at) OR verified_at = :null)',
      ExpressionAttributeValues: { ':at': at, ':null': null },
    });
    // Read back rather than ReturnValues ALL_NEW, which the collector may not ask for (lib/api.ts).
    return this.getSite(hostname);
  }

  async recordCheck(hostname: string, check: SiteCheck): Promise<SiteRecord | null> {
    const recorded = await this.updateSiteItem(hostname, {
      UpdateExpression: 'SET last_check = :c',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':c': check },
    });
    return recorded ? this.getSite(hostname) : null;
  }

  recordPurge(hostname: string, ownerUid: string, run: PurgeRun): Promise<boolean> {
    return this.updateSiteItem(hostname, {
      UpdateExpression: 'SET last_purge = :run',
      ConditionExpression: 'attribute_exists(pk) AND owner_uid = :owner',
      ExpressionAttributeValues: { ':run': run, ':owner': ownerUid },
    });
  }

  async recordSiteSeen(hostname: string, at: string): Promise<void> {
    await this.updateSiteItem(hostname, {
      UpdateExpression: 'SET last_seen_at = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at },
    });
  }

  /** An update of the site item that answers nothing back (what the collector may send); false when its condition failed. */
  private updateSiteItem(hostname: string, update: SiteCondition & { UpdateExpression: string }): Promise<boolean> {
    return conditionHeld(() => this.items.doc.send(new UpdateCommand({ TableName: this.items.table, Key: keys.site(hostname), ...update })));
  }

  deleteSite(hostname: string, ownerUid: string): Promise<boolean> {
    return this.removeRegistration(hostname, ownerUid, {
      ConditionExpression: 'attribute_exists(pk) AND owner_uid = :owner',
      ExpressionAttributeValues: { ':owner': ownerUid },
    });
  }

  /**
   * Everything stored under the site (jobs, goals, alert rules, key pointers…)
   * goes with it. The site item itself is left to its conditional delete: a
   * registration made meanwhile by someone else must not be swept away.
   */
  private async deletePartition(pk: string): Promise<void> {
    await partition.deleteItems(this.items, await partition.partitionItems(this.items, pk));
  }

  async moveSite(from: SiteRecord, to: SiteRecord, maxSitesPerAccount: number): Promise<MoveSiteResult> {
    if (!(await this.counters.reserve(to.owner_uid, 'site_count', maxSitesPerAccount))) return { outcome: 'limit' };
    // What the old registration stored, listed before the move: the sweep after it must not take what the new owner stores.
    const stored = await partition.partitionItems(this.items, keys.site(from.hostname).pk);
    const moved = await this.counters.keepFor(to.owner_uid, 'site_count', () =>
      this.putSite(to, {
        ConditionExpression: 'owner_uid = :owner AND verify_token = :token',
        ExpressionAttributeValues: { ':owner': from.owner_uid, ':token': from.verify_token },
      }),
    );
    if (!moved) return { outcome: 'changed', site: await this.getSite(from.hostname) };
    await this.counters.release(from.owner_uid, 'site_count');
    await partition.deleteItems(this.items, stored);
    return { outcome: 'moved', site: to };
  }
}
