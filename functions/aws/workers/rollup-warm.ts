/** Lambda entry of the daily rollup warm-up (EventBridge, 00:05 UTC): every current site's newly sealed days (functions/workers/rollup-warm.ts). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoRegistry } from '#adapters/dynamodb/registry.ts';
import { ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { ClickHouseSiteData } from '#adapters/clickhouse/clickhouse-site-data.ts';
import { awsClient } from '#aws/clients.ts';
import { clickHouseStore } from '#aws/event-store.ts';
import { systemClock } from '#ports/clock.ts';
import { lambdaEnv, loadConfig } from '#platform/config.ts';
import { log } from '#platform/log.ts';
import { createRollupWarmer } from '#workers/rollup-warm.ts';

const config = loadConfig(lambdaEnv());
const clickhouse = await clickHouseStore(config, { migrate: false });
if (!clickhouse) throw new Error('the rollup warm-up needs the ClickHouse event store (Timestream keeps no rollups)');

const warm = createRollupWarmer({
  registry: new DynamoRegistry(awsClient(DynamoDBClient), config.tableName),
  siteData: new ClickHouseSiteData(clickhouse),
  reports: new ClickHouseReportStore(clickhouse, { log }),
  clock: systemClock,
  log,
});

/** A run fails (so EventBridge retries and the alarm sees it) when any site failed. */
export async function handler(): Promise<{ sites: number; days: number }> {
  const result = await warm();
  if (result.failed > 0) throw new Error(`rollup warm-up: ${result.failed} of ${result.sites} sites failed (see the log lines before)`);
  return { sites: result.sites, days: result.days };
}
