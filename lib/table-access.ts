/**
 * Item-level grants on the registry table: each function gets only the
 * actions it calls, and each statement only the partition key prefixes of
 * the items it touches (`dynamodb:LeadingKeys`). The prefixes come from the
 * adapters' own key builders (functions/adapters/dynamodb/table.ts), so the
 * policies follow the layout instead of a copy of it.
 *
 * Limits of the condition key: it sees the partition key only. Everything
 * stored under a site (import jobs, the lock, sealed credentials) shares the
 * site's `SITE#…` partition, so whoever may read a site item may read those
 * too, unless the rule also names the attributes it may touch
 * (`dynamodb:Attributes`): the public collector's rules name only the site
 * item's, so it can neither read a sealed credential nor change an import
 * job. Sealed credentials stay closed anyway without kms:Decrypt, which only
 * the import worker has. Queries on gsi1 are judged by the index partition
 * key (`SITES#…`, `MKEYS#…`, `IMPORTS_ACTIVE`).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { GSI1, keys } from '#adapters/dynamodb/table.ts';

/**
 * The partition key patterns (IAM StringLike) of each kind of item. Scan is
 * never granted: it has no leading key, and ForAllValues over no keys would
 * let it through.
 */
export const KEY_PATTERNS = {
  site: keys.site('*').pk,
  account: keys.account('*').pk,
  managementKey: keys.managementKey('*').pk,
  /** gsi1: the enabled alert rules */
  enabledAlerts: keys.enabledAlerts,
  /** gsi1: a site API key by its secret's hash */
  siteApiKeyHash: keys.siteApiKeyHash('*'),
  salts: keys.salts,
  importsBy: keys.importsBy('*'),
  /** gsi1 */
  sitesOf: keys.sitesOf('*'),
  /** gsi1 */
  managementKeysOf: keys.managementKeysOf('*'),
  /** gsi1 */
  activeImports: keys.activeImports,
  /** gsi1: enabled e-mail digests by their next send time */
  digestsDue: keys.digestsDue,
  /** The unsubscribe links' signing secret */
  unsubscribeSecret: keys.unsubscribeSecret.pk,
  /** The live stream's tickets, by their hash */
  liveTicket: keys.liveTicket('*').pk,
  /** gsi1: a share link by its slug's hash */
  shareSlug: keys.shareSlugHash('*'),
  /** The share links' read grants' signing secret */
  shareSecret: keys.shareSecret.pk,
  /** gsi1: every crawler link, for the hourly sync */
  crawlerLinks: keys.crawlerLinks,
  /** An account's live stream slots */
  liveSlots: keys.liveSlot('*', 0).pk,
  /** Search Console consent states, by their hash */
  oauthState: keys.oauthState('*').pk,
  /** gsi1: the sites linked to Search Console */
  searchLinks: keys.searchLinks,
} as const;

export type DynamoAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query' | 'BatchWriteItem';

/** Some actions on the items of some partitions, of the table or of gsi1. */
export interface TableRule {
  /** Partition key patterns (values of KEY_PATTERNS). */
  keys: readonly string[];
  actions: readonly DynamoAction[];
  /** On gsi1 (Query only) instead of the table. */
  index?: true;
  /**
   * Only these attributes (keys included), read or written: a read must name them
   * (ProjectionExpression) and a write may return no others (ReturnValues NONE or UPDATED_*).
   */
  attributes?: readonly string[];
}

/** The key attributes every item request names. */
export const KEY_ATTRIBUTES = ['pk', 'sk'] as const;

/** Conditions that hold a request to `attributes` (AWS's pattern for attribute-level access). */
function attributeConditions(attributes: readonly string[]): Record<string, Record<string, unknown>> {
  return {
    'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...attributes] },
    StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES', 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] },
  };
}

/** Grants each rule as one statement with its LeadingKeys condition. */
export function grantTableRules(table: dynamodb.ITable, grantee: iam.IGrantable, rules: readonly TableRule[]): void {
  for (const rule of rules) {
    if (rule.index && rule.actions.some((a) => a !== 'Query')) throw new Error('gsi1 rules may only Query');
    iam.Grant.addToPrincipal({
      grantee,
      actions: rule.actions.map((a) => `dynamodb:${a}`),
      resourceArns: [rule.index ? `${table.tableArn}/index/${GSI1}` : table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...rule.keys] }, ...(rule.attributes ? attributeConditions(rule.attributes) : {}) },
    });
  }
}

/**
 * Resolving a management key (functions/http/auth.ts): every authenticated
 * group reads the key item, and records `last_used_at` where it may write.
 */
export const KEY_LOOKUP: TableRule = { keys: [KEY_PATTERNS.managementKey], actions: ['GetItem'] };
export const KEY_LOOKUP_AND_TOUCH: TableRule = { keys: [KEY_PATTERNS.managementKey], actions: ['GetItem', 'UpdateItem'] };
