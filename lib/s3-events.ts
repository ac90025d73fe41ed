/**
 * The event store on S3 (issue 44), the default: a private bucket of Parquet files, one or more per
 * site registration and UTC day, and a DynamoDB manifest listing each site-day's live files
 * (functions/adapters/s3-events). Pay-per-use: nothing runs or bills between requests but the
 * bytes stored. The writer puts files and lists them; the reports functions read them (no
 * write of any kind); removals (the retention purge, the owner's erasure) and the import worker
 * read and write. Functions that use it ship DuckDB (lib/node-function.ts DUCKDB_PACKAGES).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { EventStoreAccess, EventStoreResource, WriterSettings } from './event-store.ts';

/**
 * Few large files: each batch is a put and a manifest write per site-day it touches, so the
 * writer waits up to a minute to fill one (S3 and DynamoDB bill per request, README cost table);
 * 5,000 rows are 2–5 MB of messages, inside Lambda's 6 MB payload. A cold start loads DuckDB.
 */
export const S3_WRITER: WriterSettings = { batchSize: 5_000, batchingWindow: Duration.seconds(60), timeout: Duration.seconds(120) };

/** Where the event files are under the bucket (adapters/s3-events/manifest.ts objectKey). */
const EVENTS_PREFIX = 'events/*';

export class S3EventStore extends Construct implements EventStoreResource {
  readonly writer = S3_WRITER;
  /** The API-requests series lives in ClickHouse only (as on Timestream, its routes answer 501). */
  readonly keepsApiRequests = false;
  readonly bucket: s3.Bucket;
  readonly manifest: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Files', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Removed rows must be gone: no versions keep them. A put a writer died in leaves no part behind.
      versioned: false,
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // The analytics cannot be rebuilt from anything else: keep them when the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.manifest = new dynamodb.Table(this, 'Manifest', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'day', type: dynamodb.AttributeType.NUMBER },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  environment(): Readonly<Record<string, string>> {
    return { EVENTS_BUCKET: this.bucket.bucketName, EVENT_FILES_TABLE: this.manifest.tableName };
  }

  /** Reads: get objects, read the manifest. Writes: put objects, read and write manifest items. Removals add deletes. */
  grant(grantee: iam.IGrantable, access: EventStoreAccess): void {
    if (access !== 'write') {
      this.bucket.grantRead(grantee, EVENTS_PREFIX);
      this.manifest.grant(grantee, 'dynamodb:GetItem', 'dynamodb:Query');
    }
    if (access !== 'read') {
      this.bucket.grantPut(grantee, EVENTS_PREFIX);
      this.manifest.grant(grantee, 'dynamodb:GetItem', 'dynamodb:PutItem');
    }
    if (access === 'read-write') {
      this.bucket.grantDelete(grantee, EVENTS_PREFIX);
      this.manifest.grant(grantee, 'dynamodb:DeleteItem', 'dynamodb:Scan');
    }
  }
}
