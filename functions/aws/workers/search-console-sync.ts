/** Lambda entry of the daily Search Console sync (EventBridge): every linked site's days since its last sync (functions/workers/search-console-sync.ts). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { ClickHouseSearchStats } from '#adapters/clickhouse/clickhouse-search-console.ts';
import { FetchGoogleSearchClient } from '#adapters/google/google-search-client.ts';
import { KmsSecretBox } from '#adapters/kms/kms-secret-box.ts';
import { awsClient } from '#aws/clients.ts';
import { clickHouseStore } from '#aws/event-store.ts';
import { awsGoogleSettings } from '#aws/google.ts';
import { systemClock } from '#ports/clock.ts';
import { lambdaEnv, loadConfig, required } from '#platform/config.ts';
import { log } from '#platform/log.ts';
import { createSearchSyncer } from '#workers/search-console-sync.ts';

const config = loadConfig(lambdaEnv());
const clickhouse = await clickHouseStore(config, { migrate: false });
if (!clickhouse) throw new Error('the Search Console sync needs the ClickHouse event store (Timestream keeps no Search Console table)');

export const handler = createSearchSyncer({
  registry: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName),
  google: new FetchGoogleSearchClient(await awsGoogleSettings(config)),
  secrets: new KmsSecretBox(awsClient(KMSClient), required(config, 'importKmsKeyId')),
  stats: await ClickHouseSearchStats.open(clickhouse.executor, clickhouse.database),
  clock: systemClock,
  log,
});
