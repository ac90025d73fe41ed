/**
 * The event store on AWS (DESIGN.md §1, §5): one Amazon Timestream for
 * LiveAnalytics database with one table of collected rows. Only the event
 * writer writes to it; the reports functions read it.
 *
 * Timestream for LiveAnalytics is closed to new AWS customers since
 * 2025-06-20: accounts that did not use it before cannot create these
 * resources. The functions reach the store only through the `EventStore` /
 * `ReportStore` ports, so another engine (ClickHouse, Athena over Parquet)
 * comes as one adapter plus a construct like this one with the same
 * `environment` / `grant` shape (lib/event-store.ts).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as timestream from 'aws-cdk-lib/aws-timestream';
import { Construct } from 'constructs';
import type { EventStoreAccess, EventStoreResource, WriterSettings } from './event-store.ts';

/**
 * Memory store: the last 24 hours, where `live`, today's buckets and the
 * hourly series hit. Older rows sit in the magnetic store, which is far
 * cheaper per GB; queries span both stores transparently.
 */
export const MEMORY_STORE_RETENTION_HOURS = 24;
/** Magnetic store: the maximum (200 years). Collected and imported analytics remain (spec: site deletion keeps them). */
export const MAGNETIC_STORE_RETENTION_DAYS = 73_000;

/** A batch of 100 Timestream writes (its WriteRecords limit) with retries and back-off fits well inside 30 s. */
export const TIMESTREAM_WRITER: WriterSettings = { batchSize: 100, batchingWindow: Duration.seconds(5), timeout: Duration.seconds(30) };

export class Timestream extends Construct implements EventStoreResource {
  readonly writer = TIMESTREAM_WRITER;
  readonly keepsApiRequests = false;
  readonly database: timestream.CfnDatabase;
  readonly table: timestream.CfnTable;
  /** Error reports for records the magnetic store rejects asynchronously. */
  readonly rejectedRecords: s3.Bucket;
  /** TIMESTREAM_DATABASE and TIMESTREAM_TABLE, the same for every function that uses the store. */
  private readonly variables: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.database = new timestream.CfnDatabase(this, 'Database', {});
    this.rejectedRecords = new s3.Bucket(this, 'RejectedRecords', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      // They describe rows that were never stored: keep them with the data.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table = new timestream.CfnTable(this, 'Events', {
      databaseName: this.database.ref,
      retentionProperties: {
        MemoryStoreRetentionPeriodInHours: String(MEMORY_STORE_RETENTION_HOURS),
        MagneticStoreRetentionPeriodInDays: String(MAGNETIC_STORE_RETENTION_DAYS),
      },
      // Rows older than the memory store still land: SQS redeliveries and DLQ redrives of rows
      // that waited more than a day, and imported history (arrival timestamps of another tool).
      magneticStoreWriteProperties: {
        EnableMagneticStoreWrites: true,
        MagneticStoreRejectedDataLocation: {
          S3Configuration: { BucketName: this.rejectedRecords.bucketName, EncryptionOption: 'SSE_S3', ObjectKeyPrefix: 'rejected/' },
        },
      },
      // Every report query filters on one site: partition by the `site` dimension. OPTIONAL, so a
      // record without it is still stored (in the default partition) rather than rejected.
      schema: { compositePartitionKey: [{ type: 'DIMENSION', name: 'site', enforcementInRecord: 'OPTIONAL' }] },
    });
    // The analytics cannot be rebuilt from anything else: keep them when the stack goes.
    this.database.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.table.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(this).acknowledge({
      id: 'CloudFormation-Validate::W3697',
      reason: 'Timestream for LiveAnalytics is in maintenance mode (closed to new customers since 2025-06-20); chosen knowingly, behind the EventStore port',
    });
    this.variables = { TIMESTREAM_DATABASE: this.database.ref, TIMESTREAM_TABLE: this.table.attrName };
  }

  environment(): Readonly<Record<string, string>> {
    return this.variables;
  }

  grant(grantee: iam.IGrantable, access: EventStoreAccess): void {
    if (access !== 'read') this.grantWrite(grantee);
    if (access !== 'write') this.grantRead(grantee);
  }

  /** The SDK discovers its endpoint first; DescribeEndpoints has no resource to scope to. */
  private grantEndpointDiscovery(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['timestream:DescribeEndpoints'], resourceArns: ['*'] });
  }

  /** WriteRecords on the table only (the event writer). */
  private grantWrite(grantee: iam.IGrantable): void {
    this.grantEndpointDiscovery(grantee);
    iam.Grant.addToPrincipal({ grantee, actions: ['timestream:WriteRecords'], resourceArns: [this.table.attrArn] });
  }

  /** SELECT queries and the table description, nothing that changes data (the reports functions). */
  private grantRead(grantee: iam.IGrantable): void {
    this.grantEndpointDiscovery(grantee);
    iam.Grant.addToPrincipal({ grantee, actions: ['timestream:Select', 'timestream:DescribeTable'], resourceArns: [this.table.attrArn] });
  }
}
