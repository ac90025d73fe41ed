/** Reading a synthesized template in the CDK tests: resources, references and the IAM statements of each role. */
import { Stack, type CfnElement } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';

// Template JSON is untyped; the tests read it like the JSON it is.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

export const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** The logical id of a construct's CloudFormation resource (an L2's default child). */
export const logicalIdOf = (construct: IConstruct) => Stack.of(construct).getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

/** A `Ref` / `Fn::GetAtt` target's logical id. */
export const refTarget = (value: unknown): string | undefined => {
  const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] } | undefined;
  return v?.Ref ?? v?.['Fn::GetAtt']?.[0];
};

export const resourcesOf = (template: Template, type: string) => template.findResources(type) as Record<string, Resource>;

/** Every statement granted to each role: its inline policies plus attached AWS::IAM::Policy documents. */
export function statementsByRole(template: Template): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  for (const [id, role] of Object.entries(resourcesOf(template, 'AWS::IAM::Role'))) {
    const inline = (role.Properties.Policies ?? []).flatMap((p: { PolicyDocument: { Statement: Statement[] } }) => p.PolicyDocument.Statement);
    byRole.set(id, inline);
  }
  for (const policy of Object.values(resourcesOf(template, 'AWS::IAM::Policy'))) {
    for (const ref of policy.Properties.Roles as { Ref: string }[]) byRole.get(ref.Ref)?.push(...policy.Properties.PolicyDocument.Statement);
  }
  return byRole;
}

/** The statements granted to a function's role. */
export function statementsOfFunction(template: Template, functionId: string | undefined): Statement[] {
  const fn = resourcesOf(template, 'AWS::Lambda::Function')[functionId as string];
  const role = fn?.Properties.Role['Fn::GetAtt'][0] as string;
  return statementsByRole(template).get(role) ?? [];
}

/** The actions granted to a function's role that start with `prefix` (e.g. `kms:`). */
export const actionsOfFunction = (template: Template, functionId: string | undefined, prefix: string) =>
  statementsOfFunction(template, functionId).flatMap(actionsOf).filter((a) => a.startsWith(prefix));

export type ConditionedStatement = Statement & { Condition?: Record<string, Record<string, string | string[]>> };

/** An IAM StringLike pattern (`*`, `?`) as a regular expression. */
const likePattern = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);

/** The table's ARN (`Fn::GetAtt`) and its gsi1 ARN (`Fn::Join`) as the template writes them. */
export const tableArns = (tableId: string) => {
  const table = { 'Fn::GetAtt': [tableId, 'Arn'] };
  return { table, index: { 'Fn::Join': ['', [table, '/index/gsi1']] } };
};

/**
 * Whether these statements allow `action` on an item whose partition key
 * (or, on the index, index partition key) is `pk`. A statement without a
 * condition allows any key; a condition other than LeadingKeys counts as
 * allowing, so that a negative assertion errs on the safe side.
 */
export function allowsItem(statements: ConditionedStatement[], action: string, resource: unknown, pk: string): boolean {
  return statements.some((s) => {
    if (s.Effect !== 'Allow') return false;
    if (!actionsOf(s).some((a) => a === action || a === '*' || (a.endsWith('*') && action.startsWith(a.slice(0, -1))))) return false;
    const resources = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
    if (!resources.some((r) => r === '*' || JSON.stringify(r) === JSON.stringify(resource))) return false;
    const leading = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    if (leading === undefined) return true;
    return (Array.isArray(leading) ? leading : [leading]).some((p) => likePattern(p).test(pk));
  });
}

/** A CloudFormation value as text: literals as they are, `${Id}` / `${Id.Attr}` for references, joins joined. */
export function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]] };
  if (v.Ref) return `\${${v.Ref}}`;
  if (v['Fn::GetAtt']) return `\${${v['Fn::GetAtt'].join('.')}}`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(renderValue).join(v['Fn::Join'][0]);
  return JSON.stringify(value);
}

/** A stand-in for the built dashboard (the stack only uploads the folder); bin/app.ts builds the real one. */
export const DASHBOARD_FIXTURE = new URL('../fixtures/dashboard', import.meta.url).pathname;

/** The logical id prefix of the CDK's BucketDeployment function (Python, the AWS CLI), which uploads the dashboard's files. */
export const BUCKET_DEPLOYMENT_HELPER = 'CustomCDKBucketDeployment';

/** A DynamoDB item request as IAM judges it: its action, table or index, partition key, the attributes it names, Select and ReturnValues. */
export interface ItemRequest {
  action: string;
  resource: unknown;
  pk: string;
  attributes: readonly string[];
  select?: string;
  returnValues?: string;
}

const CONDITION_KEYS = new Set(['ForAllValues:StringLike/dynamodb:LeadingKeys', 'ForAllValues:StringEquals/dynamodb:Attributes', 'StringEqualsIfExists/dynamodb:Select', 'StringEqualsIfExists/dynamodb:ReturnValues']);
const asList = (v: string | string[]) => (Array.isArray(v) ? v : [v]);

/**
 * Whether these statements allow `request`, evaluating LeadingKeys, Attributes (every named
 * attribute listed), and Select / ReturnValues (when the request has one). Any other condition
 * throws, so an assertion never passes on a condition it did not read.
 */
export function allowsRequest(statements: ConditionedStatement[], request: ItemRequest): boolean {
  return statements.some((s) => {
    if (s.Effect !== 'Allow' || !actionsOf(s).includes(request.action)) return false;
    const resources = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
    if (!resources.some((r) => JSON.stringify(r) === JSON.stringify(request.resource))) return false;
    for (const [operator, keys] of Object.entries(s.Condition ?? {})) {
      for (const key of Object.keys(keys)) if (!CONDITION_KEYS.has(`${operator}/${key}`)) throw new Error(`unread condition ${operator} ${key}`);
    }
    const leading = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    if (leading !== undefined && !asList(leading).some((p) => likePattern(p).test(request.pk))) return false;
    const attributes = s.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'];
    if (attributes !== undefined && !request.attributes.every((a) => asList(attributes).includes(a))) return false;
    const ifExists = s.Condition?.StringEqualsIfExists ?? {};
    if (ifExists['dynamodb:Select'] !== undefined && request.select !== undefined && !asList(ifExists['dynamodb:Select']).includes(request.select)) return false;
    if (ifExists['dynamodb:ReturnValues'] !== undefined && request.returnValues !== undefined && !asList(ifExists['dynamodb:ReturnValues']).includes(request.returnValues)) return false;
    return true;
  });
}

const EXPRESSION_WORDS = new Set(['SET', 'REMOVE', 'ADD', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN']);

/**
 * The request a document-client command sends (GetCommand, PutCommand, UpdateCommand inputs):
 * the attribute names of its key, item, projection and expressions, placeholders resolved.
 */
export function itemRequestOf(command: { constructor: { name: string }; input: Record<string, unknown> }, resource: unknown): ItemRequest {
  const input = command.input as {
    Key?: Record<string, unknown>;
    Item?: Record<string, unknown>;
    ProjectionExpression?: string;
    UpdateExpression?: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ReturnValues?: string;
  };
  const names = input.ExpressionAttributeNames ?? {};
  const inExpression = (text = '') =>
    [...text.matchAll(/([#:]?[A-Za-z_][A-Za-z0-9_]*)(\s*\()?/g)]
      .filter(([, word, call]) => !call && !word!.startsWith(':') && !EXPRESSION_WORDS.has(word!))
      .map(([, word]) => (word!.startsWith('#') ? names[word!] ?? word! : word!));
  const attributes = new Set([
    ...Object.keys(input.Key ?? input.Item ?? {}),
    ...Object.keys(input.Item ?? {}),
    ...inExpression(input.ProjectionExpression),
    ...inExpression(input.UpdateExpression),
    ...inExpression(input.ConditionExpression),
  ]);
  const action = `dynamodb:${command.constructor.name.replace(/Command$/, '')}Item`.replace('ItemItem', 'Item');
  const pk = String((input.Key ?? input.Item)?.pk);
  if (action === 'dynamodb:GetItem') return { action, resource, pk, attributes: [...attributes], select: input.ProjectionExpression ? 'SPECIFIC_ATTRIBUTES' : 'ALL_ATTRIBUTES' };
  return { action, resource, pk, attributes: [...attributes], returnValues: input.ReturnValues ?? 'NONE' };
}
