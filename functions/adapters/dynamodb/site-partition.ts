/**
 * Items under a site's partition (`SITE#<hostname>`) besides the site item, for the registry
 * (functions/adapters/dynamodb/registry.ts): listing and removing what a registration stored (a
 * delete, a lapse, a DNS claim's move), and the DNS claims themselves (`CLAIM#<claimant>`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ClaimRecord, StartClaimResult } from '#ports/registry.ts';
import { isConditionFailure } from './document-client.ts';
import { claimItem, toClaim } from './registry-items.ts';
import { keys } from './table.ts';

export interface ItemTable {
  doc: DynamoDBDocumentClient;
  table: string;
}

type ItemKey = { pk: string; sk: string };

/** The keys of everything stored under a site partition except the site item (read consistently). */
export async function partitionItems({ doc, table }: ItemTable, pk: string): Promise<ItemKey[]> {
  const out: ItemKey[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    // (A filter expression may not name the sort key.)
    for (const it of page.Items ?? []) if (it.sk !== keys.site('').sk) out.push({ pk: it.pk as string, sk: it.sk as string });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Deletes these items, 25 a batch, retrying what the store left unprocessed. */
export async function deleteItems({ doc, table }: ItemTable, items: readonly ItemKey[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    const batch = items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
    let pending: typeof batch | undefined = batch;
    for (let attempt = 0; pending && pending.length > 0 && attempt < 8; attempt++) {
      const r: { UnprocessedItems?: Record<string, unknown[]> } = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = r.UnprocessedItems?.[table] as typeof batch | undefined;
      if (pending?.length) await new Promise((res) => setTimeout(res, 2 ** attempt * 20));
    }
  }
}

export async function getClaim({ doc, table }: ItemTable, hostname: string, claimantUid: string): Promise<ClaimRecord | null> {
  const r = await doc.send(new GetCommand({ TableName: table, Key: keys.claim(hostname, claimantUid), ConsistentRead: true }));
  return toClaim(r.Item);
}

/** Registry.startClaim: the claimant's active claim on the same registration, or `claim` written in place of what was there. */
export async function startClaim(items: ItemTable, claim: ClaimRecord, now: string): Promise<StartClaimResult> {
  const active = (c: ClaimRecord) => c.expires_at > now && c.owner_uid === claim.owner_uid && c.registration_token === claim.registration_token;
  // A lost race is read again: the claim that won is the one to keep (twice at most, then it is an error).
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await getClaim(items, claim.hostname, claim.claimant_uid);
    if (existing && active(existing)) return { outcome: 'exists', claim: existing };
    try {
      // Replaces exactly what was read (an expired claim, or one on an earlier registration), or nothing.
      const condition = existing
        ? { ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'token' }, ExpressionAttributeValues: { ':token': existing.token } }
        : { ConditionExpression: 'attribute_not_exists(pk)' };
      await items.doc.send(new PutCommand({ TableName: items.table, Item: { ...keys.claim(claim.hostname, claim.claimant_uid), ...claimItem(claim) }, ...condition }));
      return { outcome: 'created', claim };
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
    }
  }
  throw new Error(`claim on ${claim.hostname} kept changing while it was written`);
}
