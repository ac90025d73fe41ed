/**
 * Search Console on AWS (issue 41): the KMS grants of its sealed refresh
 * tokens (the import credentials' key, only under the context {site,
 * purpose: search-console}), Google's settings from the deploy's context,
 * and the daily sync: an EventBridge rule at 01:00 UTC calling the sync
 * worker, which reads the links on gsi1, records each sync on its link, and
 * writes the ClickHouse event store. On Timestream (frozen) there is no sync.
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { alarmOnAny } from './alarms.ts';
import type { EventStoreResource } from './event-store.ts';
import { NodeFunction } from './node-function.ts';
import { KEY_PATTERNS, grantTableRules } from './table-access.ts';

export const SEARCH_SYNC_ENTRY = 'functions/aws/workers/search-console-sync.ts';
/** The encryption context of a sealed refresh token (functions/ports/search-console.ts, searchConsoleContext). */
const CONTEXT_KEYS = ['site', 'purpose'] as const;

/** A KMS grant on `key` for `actions`, only under a Search Console token's encryption context. */
export function grantUnderSearchConsoleContext(key: kms.IKey, grantee: iam.IGrantable, actions: readonly ('kms:GenerateDataKey' | 'kms:Decrypt')[]): void {
  iam.Grant.addToPrincipal({
    grantee,
    actions: [...actions],
    resourceArns: [key.keyArn],
    conditions: {
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...CONTEXT_KEYS] },
      StringEquals: { 'kms:EncryptionContext:purpose': 'search-console' },
      Null: { 'kms:EncryptionContext:site': 'false' },
    },
  });
}

/** The contexts Google's client is set up from, and the variable each becomes. */
const GOOGLE_CONTEXT = [
  ['GOOGLE_CLIENT_ID', 'googleClientId'],
  ['GOOGLE_CLIENT_SECRET_ARN', 'googleClientSecretArn'],
  ['GOOGLE_REDIRECT_URI', 'googleRedirectUri'],
] as const;

const contextText = (scope: Construct, name: string): string | null => {
  const value: unknown = scope.node.tryGetContext(name);
  return typeof value === 'string' && value !== '' ? value : null;
};

/**
 * GOOGLE_* of the deploy's context (`-c googleClientId=… -c googleClientSecretArn=… -c googleRedirectUri=…`);
 * none: linking answers 501. The client secret is only ever named by its Secrets Manager ARN: a secret in
 * the context would be written into the template and the function's environment.
 */
export function googleEnvironment(scope: Construct): Record<string, string> {
  if (contextText(scope, 'googleClientSecret') !== null) {
    throw new Error('-c googleClientSecret is refused: store the secret in Secrets Manager and pass -c googleClientSecretArn=arn:aws:secretsmanager:…');
  }
  const env: Record<string, string> = {};
  for (const [name, context] of GOOGLE_CONTEXT) {
    const value = contextText(scope, context);
    if (value !== null) env[name] = value;
  }
  return env;
}

/** Lets `fn` read Google's client secret (that secret alone), when the deploy names one. */
export function grantGoogleClientSecret(scope: Construct, fn: iam.IGrantable): void {
  const arn = contextText(scope, 'googleClientSecretArn');
  if (arn !== null) secretsmanager.Secret.fromSecretCompleteArn(scope, 'GoogleClientSecret', arn).grantRead(fn);
}

export interface SearchSyncProps {
  table: dynamodb.ITable;
  eventStore: EventStoreResource;
  key: kms.IKey;
}

export class SearchConsoleSync extends Construct {
  readonly function: NodeFunction;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: SearchSyncProps) {
    super(scope, id);
    this.function = new NodeFunction(this, 'SearchConsoleSyncFunction', {
      entry: SEARCH_SYNC_ENTRY,
      description: 'tinytrack worker: pull every linked site’s Search Console days since its last sync',
      timeout: Duration.minutes(15),
      environment: { TABLE_NAME: props.table.tableName, IMPORT_KMS_KEY_ID: props.key.keyArn, ...props.eventStore.environment('read-write'), ...googleEnvironment(this) },
    });
    // Links under the site (read, sync recorded), listed on gsi1; the site itself for its registration.
    grantTableRules(props.table, this.function, [
      { keys: [KEY_PATTERNS.site], actions: ['GetItem', 'UpdateItem'] },
      { keys: [KEY_PATTERNS.searchLinks], actions: ['Query'], index: true },
    ]);
    props.eventStore.grant(this.function, 'read-write');
    grantUnderSearchConsoleContext(props.key, this.function, ['kms:Decrypt']);
    grantGoogleClientSecret(this, this.function);
    this.rule = new events.Rule(this, 'Rule', {
      description: 'tinytrack: sync Search Console daily at 01:00 UTC',
      schedule: events.Schedule.cron({ minute: '0', hour: '1' }),
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });
    alarmOnAny(this, 'ErrorsAlarm', this.function.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }), 'tinytrack: the Search Console sync failed; read its logs (each link records its last_error)');
  }
}
