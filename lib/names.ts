/**
 * Names that must be unique beyond the stack: CloudFront's are global to
 * the account (response headers policies, functions, origin access
 * controls), a Cognito domain prefix to the region across every account.
 * Each is derived from the stack name and region (`-c stackName`), so a
 * second deployment in the same account, or the same stack in another
 * region, never collides with the first. Everything else in the stack is
 * named by CloudFormation.
 */
import { createHash } from 'node:crypto';
import { Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Room kept for a region not known at synthesis (an environment-agnostic stack): the longest is 14 characters. */
const REGION_ROOM = 16;

/** `name` cut to `max` characters; a cut one ends in a hash of the whole, so two long names sharing a prefix stay apart. */
function fit(name: string, max: number): string {
  if (name.length <= max) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, Math.max(1, max - hash.length - 1))}-${hash}`;
}

const regionLength = (region: string) => (Token.isUnresolved(region) ? REGION_ROOM : region.length);

/**
 * `<stack>-<region>-<suffix>` within `maxLength` (the stack name cut to fit):
 * a CloudFront resource name, unique per stack and region.
 */
export function regionalName(scope: IConstruct, suffix: string, maxLength: number): string {
  const stack = Stack.of(scope);
  const room = maxLength - regionLength(stack.region) - suffix.length - 2;
  if (room < 1) throw new Error(`no room for the stack name in a ${maxLength}-character name ending in ${suffix}`);
  return `${fit(stack.stackName, room)}-${stack.region}-${suffix}`;
}

/** Words Cognito refuses in a domain prefix. */
const COGNITO_RESERVED = /aws|amazon|cognito/g;
/** Cognito domain prefixes: lowercase letters, digits and hyphens, at most 63. */
const PREFIX_MAX = 63;
const ACCOUNT_LENGTH = 12;

/**
 * The Cognito hosted sign-in's domain prefix: `<stack>-<region>-<account>`,
 * lowercase, without the words Cognito refuses. Unique per stack in a region
 * (the prefix is, across every AWS account).
 */
export function cognitoDomainPrefix(scope: IConstruct): string {
  const stack = Stack.of(scope);
  const cleaned =
    stack.stackName
      .toLowerCase()
      .replace(COGNITO_RESERVED, '')
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '') || 'tt';
  const room = PREFIX_MAX - regionLength(stack.region) - ACCOUNT_LENGTH - 2;
  return `${fit(cleaned, room)}-${stack.region}-${stack.account}`;
}
