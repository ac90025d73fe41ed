/**
 * The registry table (DESIGN.md §5): one DynamoDB table, `pk`/`sk` plus GSI
 * `gsi1`. The same layout is created locally by functions/adapters/dynamodb/table.ts.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** TTL attribute (Unix seconds): daily salts and other short-lived items. */
export const TTL_ATTRIBUTE = 'expires_at';

export class Storage extends Construct {
  readonly table: dynamodb.Table;
  /** Sites' icons (`icons/{hostname}`). Kept when the stack goes, as the table is (an emptied bucket can be deleted by hand). */
  readonly icons: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // Site ownership and keys cannot be rebuilt from anything else: keep the table when the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: 'gsi1',
      partitionKey: { name: 'gsi1pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'gsi1sk', type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
    this.icons = new s3.Bucket(this, 'Icons', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
