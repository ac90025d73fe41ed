/**
 * Lambda entry of the `search` route group (Search Console, issue 41): the
 * registry, the issuer, the KMS key that seals refresh tokens (the import
 * credentials' key, under its own encryption context), Google, and the
 * event store's Search Console table (ClickHouse; none on Timestream).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { ClickHouseSearchStats } from '#adapters/clickhouse/clickhouse-search-console.ts';
import { FetchGoogleSearchClient } from '#adapters/google/google-search-client.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { createSearchHandler } from '#http/handlers/search-console.ts';
import { awsClient } from '#aws/clients.ts';
import { authServices } from '#aws/auth.ts';
import { clickHouseStore } from '#aws/event-store.ts';
import { awsGoogleSettings } from '#aws/google.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';

const config = loadConfig(lambdaEnv());
const clickhouse = await clickHouseStore(config, { migrate: false });

export const handler = createSearchHandler({
  ...authServices(config, awsClient(DynamoDBClient)),
  secrets: new KmsSecretBox(awsClient(KMSClient), required(config, 'importKmsKeyId')),
  google: new FetchGoogleSearchClient(await awsGoogleSettings(config)),
  searchStats: clickhouse ? await ClickHouseSearchStats.open(clickhouse.executor, clickhouse.database) : null,
});
