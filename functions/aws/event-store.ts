/**
 * The event store of the AWS functions that read or write events (the
 * writer, the reports group, the import worker): Parquet files on S3 when the
 * stack set EVENTS_BUCKET (the default, issue 44; s3-stores.ts, loaded only
 * then), ClickHouse when it set CLICKHOUSE_URL (credentials read at start from the Secrets Manager
 * secret CLICKHOUSE_SECRET_ARN names, never from the environment, and read
 * again when the server refuses them: a rotated secret needs no redeploy),
 * else Timestream. Each entry builds only the parts it uses.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { TimestreamWriteClient } from '@aws-sdk/client-timestream-write';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseApiRequests } from '#adapters/clickhouse/clickhouse-api-requests.ts';
import { ClickHouseImportLedger } from '#adapters/clickhouse/clickhouse-import-ledger.ts';
import { ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';
import { refreshingExecutor, type ClickHouseCredentials } from '#adapters/clickhouse/refreshing-executor.ts';
import { TimestreamEventStore } from '#adapters/timestream/timestream-event-store.ts';
import { TIMESTREAM_API_REQUESTS } from '#adapters/timestream/timestream-api-requests.ts';
import { TimestreamImportLedger } from '#adapters/timestream/timestream-import-ledger.ts';
import { TimestreamReportStore } from '#adapters/timestream/timestream-report-store.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import type { CrawlerHitStore } from '#ports/crawler-hits.ts';
import { ClickHouseCrawlerHits } from '#adapters/clickhouse/clickhouse-crawler-hits.ts';
import { TIMESTREAM_CRAWLER_HITS } from '#adapters/timestream/timestream-crawler-hits.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { RowExportStore } from '#ports/row-export.ts';
import { ClickHouseRowExport } from '#adapters/clickhouse/clickhouse-row-export.ts';
import { TIMESTREAM_ROW_EXPORT } from '#adapters/timestream/timestream-row-export.ts';
import type { ImportLedger } from '#ports/import-ledger.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { SiteDataStore } from '#ports/site-data.ts';
import { ClickHouseSiteData } from '#adapters/clickhouse/clickhouse-site-data.ts';
import { awsClient } from './clients.ts';
import type * as S3Stores from './s3-stores.ts';
import { ConfigError, required, type Config, type S3EventsConfig } from '#platform/config.ts';
import { log } from '#platform/log.ts';

type S3StoresModule = typeof S3Stores;

/**
 * The S3 store's module, loaded on first use: in a Lambda bundle the file built beside it
 * (lib/node-function.ts), so only the functions of an S3 stack load DuckDB; null on another store.
 */
async function s3Stores(config: Readonly<Config>): Promise<{ stores: S3StoresModule; settings: S3EventsConfig } | null> {
  if (!config.s3Events || config.clickhouse) return null;
  const path = process.env.TT_LAMBDA_BUNDLE === '1' ? './s3-stores.mjs' : './s3-stores.ts';
  return { stores: (await import(path)) as S3StoresModule, settings: config.s3Events };
}

/** The user and password of a ClickHouse secret: `{"username": …, "password": …}` (the shape Secrets Manager's console writes). */
export function clickHouseCredentials(secret: string | undefined): ClickHouseCredentials {
  let parsed: unknown;
  try {
    parsed = JSON.parse(secret ?? '');
  } catch {
    parsed = null;
  }
  const { username, password } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof username !== 'string' || username === '' || typeof password !== 'string') {
    // Never the secret's text: only what is wrong with it.
    throw new ConfigError('invalid configuration: the CLICKHOUSE_SECRET_ARN secret must be JSON {"username": "…", "password": "…"}');
  }
  return { user: username, password };
}

/**
 * The ClickHouse store of this function, its credentials read now (and again
 * on an authentication failure); null when the stack chose Timestream.
 * Writers migrate the schema at start; a reader (`migrate: false`) only
 * attaches, so it needs no DDL rights and no start-up statements.
 */
export async function clickHouseStore(
  config: Readonly<Config>,
  { migrate = true, secrets = awsClient(SecretsManagerClient) }: { migrate?: boolean; secrets?: SecretsManagerClient } = {},
): Promise<ClickHouseEventStore | null> {
  if (!config.clickhouse) return null;
  const arn = config.clickhouseSecretArn;
  if (!arn) throw new ConfigError('invalid configuration: CLICKHOUSE_URL on AWS needs CLICKHOUSE_SECRET_ARN (the credentials are never in the environment)');
  const settings = config.clickhouse;
  const read = async () => clickHouseCredentials((await secrets.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString);
  const executor = refreshingExecutor({ read, initial: await read(), connect: (credentials) => clickHouseHttpExecutor({ ...settings, ...credentials }), log });
  return migrate ? ClickHouseEventStore.open(executor, settings.database, log) : ClickHouseEventStore.attach(executor, settings.database, log);
}

/** The event writer's stores: events, and the API-requests series beside them (none on Timestream). */
export async function awsWriterStores(config: Readonly<Config>): Promise<{ events: EventStore; apiRequests: ApiRequestStore }> {
  const s3 = await s3Stores(config);
  if (s3) return { events: await s3.stores.s3Writer(s3.settings), apiRequests: TIMESTREAM_API_REQUESTS };
  const clickhouse = await clickHouseStore(config);
  if (clickhouse) return { events: clickhouse, apiRequests: new ClickHouseApiRequests(clickhouse.executor, clickhouse.database) };
  const { database, table } = required(config, 'timestream');
  return { events: new TimestreamEventStore(awsClient(TimestreamWriteClient), database, table, { log }), apiRequests: TIMESTREAM_API_REQUESTS };
}

/** The reports function's readers: web reports and the API-requests series, over one store. */
export async function awsReportStores(config: Readonly<Config>): Promise<{ reports: ReportStore; apiRequests: ApiRequestStore }> {
  const s3 = await s3Stores(config);
  if (s3) return { reports: await s3.stores.s3Reports(s3.settings), apiRequests: TIMESTREAM_API_REQUESTS };
  const clickhouse = await clickHouseStore(config, { migrate: false });
  if (clickhouse) return { reports: new ClickHouseReportStore(clickhouse, { log }), apiRequests: new ClickHouseApiRequests(clickhouse.executor, clickhouse.database) };
  const { database, table } = required(config, 'timestream');
  return { reports: new TimestreamReportStore(awsClient(TimestreamQueryClient), database, table), apiRequests: TIMESTREAM_API_REQUESTS };
}

/** Crawler hits (issue 41): ClickHouse's table (its migrations are the writer's); none on S3 or Timestream. */
export async function awsCrawlerHits(config: Readonly<Config>): Promise<CrawlerHitStore> {
  const clickhouse = await clickHouseStore(config, { migrate: false });
  return clickhouse ? new ClickHouseCrawlerHits(clickhouse.executor, clickhouse.database) : TIMESTREAM_CRAWLER_HITS;
}

/** The owner's export (issue 42): ClickHouse's page reads; none on Timestream, frozen (501). */
export async function awsRowExport(config: Readonly<Config>): Promise<RowExportStore> {
  const s3 = await s3Stores(config);
  if (s3) return s3.stores.s3RowExport(s3.settings);
  const clickhouse = await clickHouseStore(config, { migrate: false });
  return clickhouse ? new ClickHouseRowExport(clickhouse.executor, clickhouse.database) : TIMESTREAM_ROW_EXPORT;
}

/** The writer and the ledger of imports, over one store, and what builds the imported days' rollups (none on Timestream). */
export async function awsImportStores(config: Readonly<Config>): Promise<{ events: EventStore; ledger: ImportLedger; rollups?: Pick<ReportStore, 'warmRollups'> }> {
  const s3 = await s3Stores(config);
  if (s3) return { events: await s3.stores.s3Writer(s3.settings), ledger: await s3.stores.s3ImportLedger(s3.settings) };
  const clickhouse = await clickHouseStore(config);
  if (clickhouse) return { events: clickhouse, ledger: new ClickHouseImportLedger(clickhouse), rollups: new ClickHouseReportStore(clickhouse, { log }) };
  const { database, table } = required(config, 'timestream');
  return {
    events: new TimestreamEventStore(awsClient(TimestreamWriteClient), database, table, { log }),
    ledger: new TimestreamImportLedger(awsClient(TimestreamQueryClient), database, table),
  };
}

/** One compaction pass of the S3 store (issue 44), or null on another store (nothing to compact). */
export async function awsCompaction(config: Readonly<Config>): Promise<(() => Promise<number>) | null> {
  const s3 = await s3Stores(config);
  return s3 ? () => s3.stores.s3Compact(s3.settings) : null;
}

/** A site's removal over every series (issue 42): ClickHouse's; null on Timestream (frozen: erasure answers 501, no purge). */
export async function awsSiteData(config: Readonly<Config>): Promise<SiteDataStore | null> {
  const s3 = await s3Stores(config);
  if (s3) return s3.stores.s3SiteData(s3.settings);
  const clickhouse = await clickHouseStore(config, { migrate: false });
  return clickhouse ? new ClickHouseSiteData(clickhouse) : null;
}
