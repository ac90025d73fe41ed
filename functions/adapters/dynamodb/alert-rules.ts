/**
 * Alert rules (`ALERT#<id>` under the site's partition, so a site delete or the
 * move that ends a registration sweeps them), their state changes beside them
 * (`ALERTLOG#<id>#<at>`, kept 90 days by the table's TTL), and the enabled
 * ones listed on gsi1 (`ALERTS_ENABLED`) for the every-minute check. A state
 * change is one conditional write: only the check that makes it sends mail.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AlertRuleRecord, AlertRules, AlertState } from '#ports/alert-rules.ts';
import { conditionHeld, conditionalWrite, unlessConditionFails } from './conditional-write.ts';
import { queryIndex, querySitePartition, type ItemTable } from './item-table.ts';
import { keys } from './table.ts';

const FIELDS = [
  'id', 'site', 'owner_uid', 'name', 'metric', 'comparator', 'threshold', 'window_minutes', 'route', 'recipients', 'enabled', 'state',
  'last_evaluated_at', 'last_changed_at', 'created_at',
] as const;
/** State changes are kept this long. */
const CHANGE_TTL_S = 90 * 86_400;
const HISTORY = 20;

const toRule = (item: Record<string, unknown> | undefined): AlertRuleRecord | null =>
  item ? ({ ...Object.fromEntries(FIELDS.map((f) => [f, item[f] ?? null])), history: [] } as unknown as AlertRuleRecord) : null;

/** gsi1 keys while enabled; none while disabled. */
const listing = (rule: Pick<AlertRuleRecord, 'site' | 'id' | 'enabled'>) => (rule.enabled ? { gsi1pk: keys.enabledAlerts, gsi1sk: `${rule.site}#${rule.id}` } : {});

export class DynamoAlertRules implements AlertRules {
  constructor(private readonly items: ItemTable) {}

  private async withHistory(rule: AlertRuleRecord): Promise<AlertRuleRecord> {
    const page = await this.items.doc.send(
      new QueryCommand({
        TableName: this.items.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.site(rule.site).pk, ':prefix': keys.alertChangesOf(rule.id) },
        ScanIndexForward: false,
        Limit: HISTORY,
      }),
    );
    return { ...rule, history: (page.Items ?? []).map((i) => ({ at: i.at as string, state: i.state as AlertState, value: (i.value as number | null) ?? null })) };
  }

  async createAlertRule(rule: AlertRuleRecord, maxPerSite: number): Promise<boolean> {
    // Not atomic with the count: two creations at once may both pass at the limit (a bound on clutter, not a security rule).
    if ((await this.listRules(rule.site)).length >= maxPerSite) return false;
    const { history: _history, ...fields } = rule;
    await this.items.doc.send(
      new PutCommand({ TableName: this.items.table, Item: { ...keys.alertRule(rule.site, rule.id), ...listing(rule), ...fields }, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  }

  private async listRules(site: string): Promise<AlertRuleRecord[]> {
    return (await querySitePartition(this.items, site, keys.alertRulePrefix)).map((i) => toRule(i) as AlertRuleRecord);
  }

  async listAlertRules(site: string): Promise<AlertRuleRecord[]> {
    return Promise.all((await this.listRules(site)).map((r) => this.withHistory(r)));
  }

  async getAlertRule(site: string, id: string): Promise<AlertRuleRecord | null> {
    const r = await this.items.doc.send(new GetCommand({ TableName: this.items.table, Key: keys.alertRule(site, id), ConsistentRead: true }));
    const rule = toRule(r.Item);
    return rule && this.withHistory(rule);
  }

  async updateAlertRule(site: string, id: string, patch: Partial<AlertRuleRecord>): Promise<AlertRuleRecord | null> {
    const fields = Object.entries(patch).filter(([k]) => (FIELDS as readonly string[]).includes(k) && k !== 'id' && k !== 'site' && k !== 'owner_uid');
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = fields.map(([k, v], i) => {
      names[`#f${i}`] = k;
      values[`:v${i}`] = v;
      return `#f${i} = :v${i}`;
    });
    let listed = '';
    if (patch.enabled === true) {
      Object.assign(values, { ':gpk': keys.enabledAlerts, ':gsk': `${site}#${id}` });
      sets.push('gsi1pk = :gpk', 'gsi1sk = :gsk');
    } else if (patch.enabled === false) listed = ' REMOVE gsi1pk, gsi1sk';
    if (sets.length === 0 && !listed) return this.getAlertRule(site, id);
    const r = await conditionalWrite(
      () =>
        this.items.doc.send(
          new UpdateCommand({
            TableName: this.items.table,
            Key: keys.alertRule(site, id),
            UpdateExpression: `${sets.length ? `SET ${sets.join(', ')}` : ''}${listed}`,
            ConditionExpression: 'attribute_exists(pk)',
            ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
            ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
            ReturnValues: 'ALL_NEW',
          }),
        ),
      () => null,
    );
    const rule = r ? toRule(r.Attributes) : null;
    return rule && this.withHistory(rule);
  }

  async deleteAlertRule(site: string, id: string): Promise<boolean> {
    // Its state changes expire with the table's TTL (or go with the site).
    return conditionHeld(() =>
      this.items.doc.send(new DeleteCommand({ TableName: this.items.table, Key: keys.alertRule(site, id), ConditionExpression: 'attribute_exists(pk)' })),
    );
  }

  async listEnabledAlertRules(): Promise<AlertRuleRecord[]> {
    return (await queryIndex(this.items, keys.enabledAlerts)).map((i) => toRule(i) as AlertRuleRecord);
  }

  async changeAlertState(site: string, id: string, from: AlertState, to: AlertState, minute: string, value: number | null): Promise<boolean> {
    const won = await conditionHeld(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.alertRule(site, id),
          UpdateExpression: 'SET #state = :to, last_changed_at = :minute, last_evaluated_at = :minute',
          ConditionExpression: 'attribute_exists(pk) AND #state = :from AND (attribute_not_exists(last_evaluated_at) OR last_evaluated_at = :null OR last_evaluated_at < :minute)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':to': to, ':from': from, ':minute': minute, ':null': null },
        }),
      ),
    );
    if (won) {
      await this.items.doc.send(
        new PutCommand({
          TableName: this.items.table,
          Item: { ...keys.alertChange(site, id, minute), at: minute, state: to, value, expires_at: Math.ceil(Date.parse(minute) / 1000) + CHANGE_TTL_S },
        }),
      );
    }
    return won;
  }

  async recordAlertEvaluated(site: string, id: string, at: string): Promise<void> {
    await unlessConditionFails(() =>
      this.items.doc.send(
        new UpdateCommand({
          TableName: this.items.table,
          Key: keys.alertRule(site, id),
          UpdateExpression: 'SET last_evaluated_at = :at',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_evaluated_at) OR last_evaluated_at = :null OR last_evaluated_at < :at)',
          ExpressionAttributeValues: { ':at': at, ':null': null },
        }),
      ),
    );
  }
}
