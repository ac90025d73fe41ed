/**
 * Least privilege on the registry table: each function may call only the
 * actions it uses, each only on the partition key prefixes of its items
 * (`dynamodb:LeadingKeys`), and the public collector can neither touch
 * management keys nor open sealed credentials. Bundling is skipped.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RouteGroup } from '#http/routes.ts';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import type { SiteCheck } from '#domain/site-verification.ts';
import { COLLECTOR_SITE_READ, COLLECTOR_SITE_WRITE, GROUP_ACCESS } from '../../lib/api.ts';
import type { NodeFunction } from '../../lib/node-function.ts';
import { TinytrackStack } from '../../lib/tinytrack-stack.ts';
import {
  actionsOf,
  actionsOfFunction,
  allowsItem,
  allowsRequest,
  itemRequestOf,
  type ItemRequest,
  logicalIdOf,
  resourcesOf,
  statementsByRole,
  statementsOfFunction,
  tableArns,
  type ConditionedStatement,
  DASHBOARD_FIXTURE,
} from './template-helpers.ts';

describe('TinytrackStack registry table access', () => {
  let stack: TinytrackStack;
  let template: Template;
  let arns: ReturnType<typeof tableArns>;

  beforeAll(() => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], eventStore: 'timestream' } });
    stack = new TinytrackStack(app, 'Tinytrack', { trackerScript: '', dashboardDir: DASHBOARD_FIXTURE });
    template = Template.fromStack(stack);
    arns = tableArns(logicalIdOf(stack.storage.table));
  });

  const groupFn = (group: RouteGroup) => logicalIdOf(stack.api.functions.get(group) as NodeFunction);
  const dynamoStatements = (fnId: string) =>
    statementsOfFunction(template, fnId).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:'))) as ConditionedStatement[];

  /**
   * Each grant as `<Action> <pattern>` (table) or `<Action> gsi1 <pattern>`,
   * from the statements' actions, resource and LeadingKeys patterns.
   */
  function grants(fnId: string): string[] {
    const out: string[] = [];
    for (const s of dynamoStatements(fnId)) {
      const onIndex = JSON.stringify(s.Resource) === JSON.stringify(arns.index);
      const patterns = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? ['(any key)'];
      for (const action of actionsOf(s)) {
        for (const p of Array.isArray(patterns) ? patterns : [patterns]) out.push(`${action.replace('dynamodb:', '')} ${onIndex ? 'gsi1 ' : ''}${p}`);
      }
    }
    return out.sort();
  }

  const functionIds = () => Object.keys(resourcesOf(template, 'AWS::Lambda::Function'));

  it('puts a LeadingKeys condition on every DynamoDB statement of every role, on the table or gsi1 only', () => {
    let checked = 0;
    for (const [role, statements] of statementsByRole(template)) {
      for (const s of statements as ConditionedStatement[]) {
        if (!actionsOf(s).some((a) => a.startsWith('dynamodb:'))) continue;
        checked++;
        const leading = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        expect(Array.isArray(leading) && leading.length > 0, `${role} ${JSON.stringify(s)}`).toBe(true);
        expect([JSON.stringify(arns.table), JSON.stringify(arns.index)], role).toContain(JSON.stringify(s.Resource));
      }
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('grants no DynamoDB action without a leading key (Scan, DescribeTable, PartiQL…) to any function', () => {
    const allowed = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem'].map((a) => `dynamodb:${a}`);
    for (const id of functionIds()) {
      for (const action of actionsOfFunction(template, id, 'dynamodb:')) expect(allowed, `${id} ${action}`).toContain(action);
    }
  });

  it('lets the collector read sites and set their last_seen_at and verification, and create and read the daily salt, nothing more', () => {
    expect(grants(groupFn('collector'))).toEqual(['GetItem SALTS', 'GetItem SITE#*', 'PutItem SALTS', 'UpdateItem SITE#*']);
  });

  it('gives the collector no access to management keys, accounts or sealed credentials', () => {
    const statements = dynamoStatements(groupFn('collector'));
    for (const action of ['PutItem', 'UpdateItem', 'GetItem', 'DeleteItem']) {
      expect(allowsItem(statements, `dynamodb:${action}`, arns.table, 'MKEY#0123abcd'), action).toBe(false);
      expect(allowsItem(statements, `dynamodb:${action}`, arns.table, 'ACCOUNT#uid-1'), action).toBe(false);
    }
    expect(allowsItem(statements, 'dynamodb:Query', arns.index, 'MKEYS#uid-1')).toBe(false);
    // Registrations are made by the sites function: the collector cannot create, replace or delete one.
    expect(allowsItem(statements, 'dynamodb:PutItem', arns.table, 'SITE#example.com')).toBe(false);
    expect(allowsItem(statements, 'dynamodb:DeleteItem', arns.table, 'SITE#example.com')).toBe(false);
    expect(allowsItem(statements, 'dynamodb:GetItem', arns.table, 'SITE#example.com')).toBe(true);
    // Sealed credentials share the site's partition; without any KMS action they stay sealed.
    expect(actionsOfFunction(template, groupFn('collector'), 'kms:')).toEqual([]);
  });

  it('holds the collector to the site item’s own attributes under a site: reads must name them, writes return no others', () => {
    const site = dynamoStatements(groupFn('collector')).filter((s) => JSON.stringify(s.Condition).includes('SITE#'));
    expect(site.map((s) => [actionsOf(s), s.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'], s.Condition?.StringEqualsIfExists])).toEqual([
      [['dynamodb:GetItem'], [...COLLECTOR_SITE_READ], { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES', 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] }],
      [['dynamodb:UpdateItem'], [...COLLECTOR_SITE_WRITE], { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES', 'dynamodb:ReturnValues': ['NONE', 'UPDATED_OLD', 'UPDATED_NEW'] }],
    ]);
    // None of what import jobs, their lock and sealed credentials hold (functions/adapters/dynamodb/import-jobs.ts).
    for (const attribute of ['sealed', 'status', 'job_id', 'locked_at', 'done_chunks', 'config', 'error']) {
      expect([...COLLECTOR_SITE_READ, ...COLLECTOR_SITE_WRITE], attribute).not.toContain(attribute);
    }
  });

  it('allows every request the collector’s registry calls send, and none that reads a sealed credential or changes an import job', async () => {
    const statements = dynamoStatements(groupFn('collector'));
    const doc = mockClient(DynamoDBDocumentClient);
    doc.on(GetCommand).resolves({ Item: { pk: 'SITE#a.example', sk: 'SITE', hostname: 'a.example', owner_uid: 'u1', verified_at: null } });
    doc.on(UpdateCommand).resolves({});
    doc.on(PutCommand).resolves({});
    try {
      const registry = new DynamoRegistry(new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } }), 'table');
      await registry.getSite('a.example');
      await registry.recordSiteSeen('a.example', '2025-01-01T00:00:00.000Z');
      await registry.markVerified('a.example', '2025-01-01T00:00:00.000Z');
      await registry.recordCheck('a.example', { ok: true, method: 'script', reason: null, detail: 'found', checked_at: '2025-01-01T00:00:00.000Z', trigger: 'collect' } as SiteCheck);
      await registry.getOrCreateDailySalt('2025-01-01', 'candidate', 1_735_776_000);
      const requests = doc.calls().map((call) => itemRequestOf(call.args[0] as never, arns.table));
      expect(requests.map((r) => r.action)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem']));
      for (const request of requests) expect(allowsRequest(statements, request), JSON.stringify(request)).toBe(true);
    } finally {
      doc.restore();
    }
    // IAM sees the partition key only: an import job (sk IMPORT#…) or a sealed credential (sk IMPORTKEY#…) has the site's.
    const underSite = (over: Partial<ItemRequest>): ItemRequest => ({ action: 'dynamodb:GetItem', resource: arns.table, pk: 'SITE#a.example', attributes: ['pk', 'sk'], ...over });
    // A sealed credential: by its attribute's name, or by reading the whole item.
    expect(allowsRequest(statements, underSite({ attributes: ['pk', 'sk', 'sealed'], select: 'SPECIFIC_ATTRIBUTES' }))).toBe(false);
    expect(allowsRequest(statements, underSite({ select: 'ALL_ATTRIBUTES' }))).toBe(false);
    // An import job: its status, or the whole item in the answer to an update.
    expect(allowsRequest(statements, underSite({ action: 'dynamodb:UpdateItem', attributes: ['pk', 'sk', 'status'], returnValues: 'NONE' }))).toBe(false);
    expect(allowsRequest(statements, underSite({ action: 'dynamodb:UpdateItem', attributes: ['pk', 'sk', 'last_seen_at'], returnValues: 'ALL_NEW' }))).toBe(false);
  });

  it('lets the reports function read sites, list an owner’s sites, look up keys and share links, and write only the share grants’ secret', () => {
    expect(grants(groupFn('reports'))).toEqual(['GetItem MKEY#*', 'GetItem SECRET#share', 'GetItem SITE#*', 'PutItem SECRET#share', 'Query gsi1 SHARESLUG#*', 'Query gsi1 SITES#*']);
    expect(allowsItem(dynamoStatements(groupFn('reports')), 'dynamodb:PutItem', arns.table, 'SITE#a.example')).toBe(false);
  });

  it('lets the account function keep the account counters and the management keys', () => {
    expect(grants(groupFn('account'))).toEqual([
      'GetItem ACCOUNT#*',
      'GetItem MKEY#*',
      'PutItem MKEY#*',
      'Query gsi1 MKEYS#*',
      'UpdateItem ACCOUNT#*',
      'UpdateItem MKEY#*',
    ]);
  });

  it('lets the sites function manage site partitions (share links among them) and the site counter, and only look up and touch keys', () => {
    expect(grants(groupFn('sites'))).toEqual([
      'BatchWriteItem SITE#*',
      'DeleteItem SITE#*',
      'GetItem ACCOUNT#*',
      'GetItem MKEY#*',
      'GetItem SECRET#share',
      'GetItem SITE#*',
      'PutItem SECRET#share',
      'PutItem SITE#*',
      'Query SITE#*',
      'Query gsi1 SHARESLUG#*',
      'Query gsi1 SITES#*',
      'UpdateItem ACCOUNT#*',
      'UpdateItem MKEY#*',
      'UpdateItem SITE#*',
    ]);
    expect(allowsItem(dynamoStatements(groupFn('sites')), 'dynamodb:PutItem', arns.table, 'MKEY#0123abcd')).toBe(false);
  });

  it('lets the digests function keep e-mail reports under the site, the account’s defaults and workspace digest, and the unsubscribe secret', () => {
    expect(grants(groupFn('digests'))).toEqual([
      'DeleteItem SITE#*',
      'GetItem ACCOUNT#*',
      'GetItem MKEY#*',
      'GetItem SECRET#unsubscribe',
      'GetItem SITE#*',
      'PutItem ACCOUNT#*',
      'PutItem SECRET#unsubscribe',
      'PutItem SITE#*',
      'Query SITE#*',
      'Query gsi1 SITES#*',
      'UpdateItem MKEY#*',
    ]);
  });

  it('lets the digest sends read sites, goals and digests, claim and move digests, list the due ones, and read the unsubscribe secret', () => {
    expect(grants(logicalIdOf(stack.schedules.digestSends))).toEqual([
      'GetItem ACCOUNT#*',
      'GetItem SECRET#unsubscribe',
      'GetItem SITE#*',
      'PutItem SECRET#unsubscribe',
      'Query ACCOUNT#*',
      'Query SITE#*',
      'Query gsi1 DIGESTS_DUE',
      'Query gsi1 SITES#*',
      'UpdateItem ACCOUNT#*',
      'UpdateItem SITE#*',
    ]);
  });

  it('lets the imports function keep jobs, locks and credentials under the site and the owner’s daily slots', () => {
    expect(grants(groupFn('imports'))).toEqual([
      'DeleteItem IMPORTS_BY#*',
      'DeleteItem SITE#*',
      'GetItem MKEY#*',
      'GetItem SITE#*',
      'PutItem IMPORTS_BY#*',
      'PutItem SITE#*',
      'Query IMPORTS_BY#*',
      'Query SITE#*',
      'UpdateItem MKEY#*',
      'UpdateItem SITE#*',
    ]);
  });

  it('gives the meta function and the event writer no DynamoDB access', () => {
    expect(grants(groupFn('meta'))).toEqual([]);
    expect(grants(logicalIdOf(stack.writer.function))).toEqual([]);
  });

  it('lets the import worker read, update and delete items under sites only', () => {
    expect(grants(logicalIdOf(stack.imports.worker))).toEqual(['DeleteItem SITE#*', 'GetItem SITE#*', 'UpdateItem SITE#*']);
  });

  it('lets the salt rotation query and delete salts only', () => {
    const id = logicalIdOf(stack.schedules.rotateSalts);
    expect(grants(id)).toEqual(['DeleteItem SALTS', 'Query SALTS']);
    expect(allowsItem(dynamoStatements(id), 'dynamodb:DeleteItem', arns.table, 'SITE#example.com')).toBe(false);
  });

  it('grants each route group’s function one statement per GROUP_ACCESS table rule', () => {
    for (const [group, access] of Object.entries(GROUP_ACCESS) as [RouteGroup, (typeof GROUP_ACCESS)[RouteGroup]][]) {
      const statements = dynamoStatements(groupFn(group));
      expect(statements, group).toHaveLength(access.table.length);
      for (const rule of access.table) {
        const resource = rule.index ? arns.index : arns.table;
        for (const action of rule.actions) {
          for (const pattern of rule.keys) {
            expect(allowsItem(statements, `dynamodb:${action}`, resource, pattern.replace('*', 'x')), `${group} ${action} ${pattern}`).toBe(true);
          }
        }
      }
    }
  });
});
