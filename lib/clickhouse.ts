/**
 * The event store on ClickHouse (a ClickHouse Cloud service or a
 * self-managed server the functions can reach): the stack creates nothing
 * of it, only points the functions at its URL and lets them read their
 * credentials from a Secrets Manager secret at start, so no password is in
 * the template or any function's environment. The database and tables are
 * created and migrated by the writers themselves.
 *
 * Two ClickHouse users, two secrets: the writer's (the event writer and the
 * import worker: DDL, inserts, reads) and the reader's (the public reports
 * function: SELECT, plus the inserts of the report rollups it caches; the
 * GRANTs are in the README). A function that answers anonymous callers never
 * holds credentials that could change or delete the events. A secret under a
 * customer-managed KMS key names it (`-c clickhouseSecretKmsKeyArn`): each
 * reader of a secret may decrypt with it through Secrets Manager, for that
 * secret only.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { CLICKHOUSE_FAILURE_LOG } from '#adapters/clickhouse/refreshing-executor.ts';
import { alarmOnAny } from './alarms.ts';
import type { EventStoreAccess, EventStoreResource, WriterSettings } from './event-store.ts';

export interface ClickHouseProps {
  /** `https://host:8443` of the service. */
  url: string;
  /** The complete ARN of the writer's secret, `{"username": …, "password": …}`. */
  writerSecretArn: string;
  /** The complete ARN of the reports reader's secret, the same shape. */
  readerSecretArn: string;
  /** The customer-managed KMS key both secrets are encrypted with; unset: Secrets Manager's own key. */
  secretKmsKeyArn?: string;
  database?: string;
}

/**
 * Few large inserts: ClickHouse makes a part per insert and merges them
 * later, so many small inserts cost it far more than a few big ones. 2,000
 * rows are about 1–2 MB of messages, well inside Lambda's 6 MB payload.
 */
export const CLICKHOUSE_WRITER: WriterSettings = { batchSize: 2_000, batchingWindow: Duration.seconds(10), timeout: Duration.seconds(60) };

/** Where the alarm's metric lives: per stack, as two stacks in one account must not count each other's failures. */
export const metricNamespace = (scope: Construct) => `tinytrack/${Stack.of(scope).stackName}`;

export class ClickHouse extends Construct implements EventStoreResource {
  readonly writer = CLICKHOUSE_WRITER;
  readonly keepsApiRequests = true;
  private readonly url: string;
  private readonly database: string;
  private readonly secrets: Readonly<Record<'read' | 'write', { arn: string; secret: secretsmanager.ISecret }>>;
  private readonly keyArn: string | undefined;
  /** Failed ClickHouse requests (after a credential re-read), from the logs of every function that uses the store. */
  readonly errors: cloudwatch.Metric;

  constructor(scope: Construct, id: string, props: ClickHouseProps) {
    super(scope, id);
    const url = new URL(props.url);
    if (url.protocol !== 'https:') throw new Error('context clickhouseUrl must be an https:// URL (credentials travel with every request)');
    if (props.readerSecretArn === props.writerSecretArn) throw new Error('context clickhouseReaderSecretArn must name another secret than clickhouseSecretArn: the reports function must not hold the writer’s credentials');
    this.url = props.url;
    this.database = props.database ?? 'tinytrack';
    this.secrets = {
      write: { arn: props.writerSecretArn, secret: secretsmanager.Secret.fromSecretCompleteArn(this, 'Credentials', props.writerSecretArn) },
      read: { arn: props.readerSecretArn, secret: secretsmanager.Secret.fromSecretCompleteArn(this, 'ReaderCredentials', props.readerSecretArn) },
    };
    this.keyArn = props.secretKmsKeyArn;
    this.errors = new cloudwatch.Metric({ namespace: metricNamespace(this), metricName: 'ClickHouseErrors', statistic: 'Sum', period: Duration.minutes(5) });
    // Transient failures are retried (SQS redelivers, owners reload): a failure in two of three periods is worth a look.
    alarmOnAny(this, 'ErrorsAlarm', this.errors, 'tinytrack: ClickHouse requests fail (writes wait on the queues, reports answer 500); read the functions’ "clickhouse request failed" lines', {
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
    });
  }

  private secretOf(access: EventStoreAccess) {
    return access === 'read' ? this.secrets.read : this.secrets.write;
  }

  environment(access: EventStoreAccess): Readonly<Record<string, string>> {
    return { CLICKHOUSE_URL: this.url, CLICKHOUSE_SECRET_ARN: this.secretOf(access).arn, CLICKHOUSE_DATABASE: this.database };
  }

  /** Reading its one secret is all the AWS access a function needs; what it may do in ClickHouse, that user's GRANTs decide. */
  grant(grantee: iam.IGrantable, access: EventStoreAccess): void {
    const { arn, secret } = this.secretOf(access);
    secret.grantRead(grantee);
    if (this.keyArn) {
      iam.Grant.addToPrincipal({
        grantee,
        actions: ['kms:Decrypt'],
        resourceArns: [this.keyArn],
        // Only as Secrets Manager decrypts this one secret for it, never a direct call.
        conditions: {
          StringEquals: {
            'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com`,
            'kms:EncryptionContext:SecretARN': arn,
          },
        },
      });
    }
  }

  /** Counts the failed ClickHouse requests that `fn` logs into `errors`. */
  watch(fn: lambda.Function): void {
    new logs.MetricFilter(this, `${fn.node.id}Errors`, {
      logGroup: fn.logGroup,
      filterPattern: logs.FilterPattern.literal(`"${CLICKHOUSE_FAILURE_LOG}"`),
      metricNamespace: this.errors.namespace,
      metricName: this.errors.metricName,
      metricValue: '1',
    });
  }
}
