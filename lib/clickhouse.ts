/**
 * The event store on ClickHouse (a ClickHouse Cloud service or a
 * self-managed server the functions can reach): the stack creates nothing
 * of it, only points the functions at its URL and lets them read its
 * credentials from a Secrets Manager secret at start, so no password is in
 * the template or any function's environment. The database and tables are
 * created and migrated by the functions themselves.
 */
import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { EventStoreResource, WriterSettings } from './event-store.ts';

export interface ClickHouseProps {
  /** `https://host:8443` of the service. */
  url: string;
  /** The complete ARN of a secret holding `{"username": …, "password": …}`. */
  secretArn: string;
  database?: string;
}

/**
 * Few large inserts: ClickHouse makes a part per insert and merges them
 * later, so many small inserts cost it far more than a few big ones. 2,000
 * rows are about 1–2 MB of messages, well inside Lambda's 6 MB payload.
 */
export const CLICKHOUSE_WRITER: WriterSettings = { batchSize: 2_000, batchingWindow: Duration.seconds(10), timeout: Duration.seconds(60) };

export class ClickHouse extends Construct implements EventStoreResource {
  readonly environment: Readonly<Record<string, string>>;
  readonly writer = CLICKHOUSE_WRITER;
  private readonly secret: secretsmanager.ISecret;

  constructor(scope: Construct, id: string, props: ClickHouseProps) {
    super(scope, id);
    const url = new URL(props.url);
    if (url.protocol !== 'https:') throw new Error('context clickhouseUrl must be an https:// URL (credentials travel with every request)');
    this.secret = secretsmanager.Secret.fromSecretCompleteArn(this, 'Credentials', props.secretArn);
    this.environment = { CLICKHOUSE_URL: props.url, CLICKHOUSE_SECRET_ARN: props.secretArn, CLICKHOUSE_DATABASE: props.database ?? 'tinytrack' };
  }

  /** Reading the credentials is all the AWS access a ClickHouse user of the functions needs; what it may do there, ClickHouse's grants decide. */
  grantWrite(grantee: iam.IGrantable): void {
    this.secret.grantRead(grantee);
  }

  grantRead(grantee: iam.IGrantable): void {
    this.secret.grantRead(grantee);
  }
}
