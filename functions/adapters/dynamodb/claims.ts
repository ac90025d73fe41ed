/** DNS claims on a registration (functions/domain/site-claim.ts): one item per claimant under the site (`CLAIM#<claimant>`), so a delete or a move removes them. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ClaimRecord, SiteClaims, StartClaimResult } from '#ports/registry.ts';
import { conditionHeld } from './conditional-write.ts';
import type { ItemTable } from './item-table.ts';
import { claimItem, toClaim } from './registry-items.ts';
import { keys } from './table.ts';

export class DynamoSiteClaims implements SiteClaims {
  constructor(private readonly items: ItemTable) {}

  async getClaim(hostname: string, claimantUid: string): Promise<ClaimRecord | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.claim(hostname, claimantUid), ConsistentRead: true }));
    return toClaim(r.Item);
  }

  /** The claimant's active claim on the same registration, or `claim` written in place of what was there. */
  async startClaim(claim: ClaimRecord, now: string): Promise<StartClaimResult> {
    const active = (c: ClaimRecord) => c.expires_at > now && c.owner_uid === claim.owner_uid && c.registration_token === claim.registration_token;
    // A lost race is read again: the claim that won is the one to keep (twice at most, then it is an error).
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await this.getClaim(claim.hostname, claim.claimant_uid);
      if (existing && active(existing)) return { outcome: 'exists', claim: existing };
      // Replaces exactly what was read (an expired claim, or one on an earlier registration), or nothing.
      const condition = existing
        ? { ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' }, ExpressionAttributeValues: { ':token': existing.token } }
        : { ConditionExpression: 'attribute_not_exists(pk)' };
      const written = await conditionHeld(() =>
        this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: { ...keys.claim(claim.hostname, claim.claimant_uid), ...claimItem(claim) }, ...condition })),
      );
      if (written) return { outcome: 'created', claim };
    }
    throw new Error(`claim on ${claim.hostname} kept changing while it was written`);
  }
}
