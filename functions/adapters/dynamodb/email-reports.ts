/**
 * E-mail digests (issue 38) in the registry's table: a site's reports as
 * `REPORT#<id>` under the site's partition (a site delete or the move that
 * ends a registration sweeps them), an account's defaults and workspace
 * digest under the account, and every enabled digest listed on gsi1
 * (`DIGESTS_DUE`, sorted by its next send time) for the scheduled run. A run
 * claims a digest with one conditional write (`sending_until`), and only the
 * claim's holder moves `next_send_at`; a claim whose run died lapses, so the
 * next run tries again.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DigestRef, DigestTarget, EmailReportRecord, EmailReports, ReportDefaults, WorkspaceDigestRecord } from '#ports/email-reports.ts';
import type { SiteRecords } from '#ports/goals.ts';
import { conditionHeld, unlessConditionFails } from './conditional-write.ts';
import { queryIndexUpTo, type ItemTable } from './item-table.ts';
import { DynamoSiteRecords } from './site-records.ts';
import { StoredSecret } from './stored-secret.ts';
import { keys } from './table.ts';

const DELIVERY_FIELDS = ['enabled', 'last_sent_at', 'next_send_at', 'last_error'] as const;
const REPORT_FIELDS = ['id', 'site', 'owner_uid', 'frequency', 'tz', 'recipients', 'inherits', ...DELIVERY_FIELDS, 'created_at'] as const;
const WORKSPACE_FIELDS = ['owner_uid', 'frequency', 'tz', 'recipients', 'sites', ...DELIVERY_FIELDS] as const;

/** A digest's gsi1 sort key after its next send time: which one it is. */
const refKey = (ref: DigestRef) => (ref.kind === 'site' ? `site#${ref.site}#${ref.id}` : `workspace#${ref.owner_uid}`);
const itemKey = (ref: DigestRef) => (ref.kind === 'site' ? { pk: keys.site(ref.site).pk, sk: `${keys.emailReportPrefix}${ref.id}` } : keys.workspaceDigest(ref.owner_uid));

/** Listed by its next send time while enabled; not listed otherwise. */
const listing = (ref: DigestRef, d: { enabled: boolean; next_send_at: string | null }) =>
  d.enabled && d.next_send_at ? { gsi1pk: keys.digestsDue, gsi1sk: `${d.next_send_at}#${refKey(ref)}` } : null;

const pick = <T>(item: Record<string, unknown>, fields: readonly string[]) => Object.fromEntries(fields.map((f) => [f, item[f] ?? null])) as T;

export class DynamoEmailReports implements EmailReports {
  readonly emailReports: SiteRecords<EmailReportRecord>;
  private readonly secret: StoredSecret;

  constructor(private readonly items: ItemTable) {
    this.secret = new StoredSecret(items, keys.unsubscribeSecret);
    this.emailReports = new DynamoSiteRecords<EmailReportRecord>(items, keys.emailReportPrefix, [...REPORT_FIELDS], (r) => listing({ kind: 'site', site: r.site, id: r.id }, r));
  }

  private async get(key: { pk: string; sk: string }): Promise<Record<string, unknown> | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: key, ConsistentRead: true }));
    return r.Item ?? null;
  }

  async getReportDefaults(ownerUid: string): Promise<ReportDefaults | null> {
    const item = await this.get(keys.reportDefaults(ownerUid));
    return item && pick<ReportDefaults>(item, ['frequency', 'tz', 'recipients']);
  }

  async putReportDefaults(ownerUid: string, defaults: ReportDefaults): Promise<void> {
    await this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: { ...keys.reportDefaults(ownerUid), ...defaults } }));
  }

  async getWorkspaceDigest(ownerUid: string): Promise<WorkspaceDigestRecord | null> {
    const item = await this.get(keys.workspaceDigest(ownerUid));
    return item && pick<WorkspaceDigestRecord>(item, WORKSPACE_FIELDS);
  }

  async putWorkspaceDigest(digest: WorkspaceDigestRecord): Promise<void> {
    const ref: DigestRef = { kind: 'workspace', owner_uid: digest.owner_uid };
    await this.items.doc.send(new PutCommand({ TableName: this.items.table, Item: { ...keys.workspaceDigest(digest.owner_uid), ...listing(ref, digest), ...digest } }));
  }

  async dropWorkspaceSite(ownerUid: string, hostname: string): Promise<void> {
    const digest = await this.getWorkspaceDigest(ownerUid);
    const at = digest && digest.sites !== 'all' ? digest.sites.indexOf(hostname) : -1;
    if (at < 0) return;
    // That one element, on condition it is still there: a change in between keeps what it set (and the site is left out when sent anyway).
    await unlessConditionFails(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.workspaceDigest(ownerUid),
          UpdateExpression: `REMOVE sites[${at}]`,
          ConditionExpression: `sites[${at}] = :site`,
          ExpressionAttributeValues: { ':site': hostname },
        }),
      ),
    );
  }

  async dueDigests(now: string): Promise<DigestTarget[]> {
    // `~` sorts after every reference, so a digest due at `now` itself is in.
    const items = await queryIndexUpTo(this.items, keys.digestsDue, `${now}#~`);
    return items.map((item) =>
      item.sk === keys.workspaceDigest('').sk ? { kind: 'workspace', digest: pick<WorkspaceDigestRecord>(item, WORKSPACE_FIELDS) } : { kind: 'site', report: pick<EmailReportRecord>(item, REPORT_FIELDS) },
    );
  }

  claimDigest(ref: DigestRef, dueAt: string, now: string, until: string): Promise<boolean> {
    return conditionHeld(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: itemKey(ref),
          UpdateExpression: 'SET sending_until = :until',
          ConditionExpression: 'next_send_at = :due AND enabled = :on AND (attribute_not_exists(sending_until) OR sending_until < :now)',
          ExpressionAttributeValues: { ':until': until, ':due': dueAt, ':on': true, ':now': now },
        }),
      ),
    );
  }

  async finishDigest(ref: DigestRef, dueAt: string, outcome: { sentAt: string; next: string } | { error: string }): Promise<void> {
    const moved =
      'error' in outcome
        ? { UpdateExpression: 'SET last_error = :error REMOVE sending_until', ExpressionAttributeValues: { ':error': outcome.error, ':due': dueAt } }
        : {
            UpdateExpression: 'SET next_send_at = :next, last_sent_at = :sent, last_error = :none, gsi1sk = :listed REMOVE sending_until',
            ExpressionAttributeValues: { ':next': outcome.next, ':sent': outcome.sentAt, ':none': null, ':listed': `${outcome.next}#${refKey(ref)}`, ':due': dueAt },
          };
    // A digest changed or deleted meanwhile keeps what its change made of it.
    await unlessConditionFails(() => this.items.doc.send(new UpdateCommand({ TableName: this.items.table, Key: itemKey(ref), ConditionExpression: 'next_send_at = :due', ...moved })));
  }

  unsubscribeSecret(): Promise<Buffer> {
    return this.secret.get();
  }
}
