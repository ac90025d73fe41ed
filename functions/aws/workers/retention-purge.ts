/** Lambda entry of the daily retention purge (EventBridge, 00:00 UTC): every stored site's rows past its retention (functions/workers/retention-purge.ts). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { awsClient } from '#aws/clients.ts';
import { awsSiteData } from '#aws/event-store.ts';
import { systemClock } from '#ports/clock.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';
import { log } from '#platform/log.ts';
import { createRetentionPurge } from '#workers/retention-purge.ts';

const config = loadConfig(lambdaEnv());
const siteData = await awsSiteData(config);
if (!siteData) throw new Error('the retention purge needs the ClickHouse event store (Timestream keeps its table-level retention only)');

const purge = createRetentionPurge({ registry: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName), siteData, clock: systemClock, log, retentionMaxMonths: config.retentionMaxMonths });

/** A run fails (so EventBridge retries and the alarm sees it) when any site failed. */
export async function handler(): Promise<{ sites: number; rows: number }> {
  const result = await purge();
  if (result.failed > 0) throw new Error(`retention purge: ${result.failed} of ${result.sites} sites failed (see the log lines before)`);
  return { sites: result.sites, rows: result.rows };
}
