/**
 * The event store of one machine, with the reports and the import ledger
 * over it: the embedded DuckDB file in DATA_DIR by default, a ClickHouse
 * server when CLICKHOUSE_URL is set (the way past one machine's disk and
 * cores, docs/scaling.md), or Parquet files on an S3-compatible server when
 * S3_EVENTS_URL is set (the AWS default's store, issue 44; the other series
 * stay in the DuckDB file).
 */
import { join } from 'node:path';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseImportLedger } from '#adapters/clickhouse/clickhouse-import-ledger.ts';
import { ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { clickHouseHttpExecutor } from '#adapters/clickhouse/http-executor.ts';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbImportLedger } from '#adapters/duckdb/duckdb-import-ledger.ts';
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import { ClickHouseApiRequests } from '#adapters/clickhouse/clickhouse-api-requests.ts';
import { DuckDbApiRequests } from '#adapters/duckdb/duckdb-api-requests.ts';
import { DuckDbSearchStats } from '#adapters/duckdb/duckdb-search-console.ts';
import { ClickHouseSearchStats } from '#adapters/clickhouse/clickhouse-search-console.ts';
import type { SearchStatsStore } from '#ports/search-console.ts';
import type { ImportLedger } from '#ports/import-ledger.ts';
import type { CrawlerHitStore } from '#ports/crawler-hits.ts';
import { ClickHouseCrawlerHits } from '#adapters/clickhouse/clickhouse-crawler-hits.ts';
import { DuckDbCrawlerHits } from '#adapters/duckdb/duckdb-crawler-hits.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { SiteDataStore } from '#ports/site-data.ts';
import { ClickHouseSiteData } from '#adapters/clickhouse/clickhouse-site-data.ts';
import { DuckDbSiteData } from '#adapters/duckdb/duckdb-site-data.ts';
import type { RowExportStore } from '#ports/row-export.ts';
import { ClickHouseRowExport } from '#adapters/clickhouse/clickhouse-row-export.ts';
import { DuckDbRowExport } from '#adapters/duckdb/duckdb-row-export.ts';
import type { RegistrationsOf } from '#adapters/duckdb/migrations.ts';
import type { Config, S3EventsConfig } from '#platform/config.ts';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { openS3Events } from '#adapters/s3-events/s3-events.ts';
import { S3ImportLedger } from '#adapters/s3-events/s3-import-ledger.ts';
import { S3RowExport } from '#adapters/s3-events/s3-row-export.ts';
import { S3SiteData } from '#adapters/s3-events/s3-site-data.ts';
import { log } from '#platform/log.ts';

export interface LocalEvents {
  events: EventStore;
  reports: ReportStore;
  ledger: ImportLedger;
  /** The API-requests series (POST /api/ingest, the API reports, the alert checks). */
  apiRequests: ApiRequestStore;
  /** Search Console figures (issue 41). */
  searchStats: SearchStatsStore;
  /** Crawler hits from Cloudflare zones (issue 41). */
  crawlerHits: CrawlerHitStore;
  /** Removes a site's rows from every series (the retention purge, the owner's erasure; issue 42). */
  siteData: SiteDataStore;
  /** The owner's export (issue 42): the series' rows a page at a time. */
  rowExport: RowExportStore;
  /** One compaction pass of the S3 store (S3_EVENTS_URL; adapters/s3-events/compactor.ts), hourly; null on the other stores. */
  compactEvents: (() => Promise<number>) | null;
  /** The embedded store when it is the one in use (tests and admin commands read it directly); null on ClickHouse. */
  duckdb: DuckDbEventStore | null;
  close(): Promise<void>;
}

/** The S3 client of S3_EVENTS_URL: path-style (a local server has no bucket subdomains), checksums only where S3 requires them. */
export function s3EventsClient(settings: S3EventsConfig): S3Client {
  return new S3Client({
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

/** The events on S3 (its manifest in the local DynamoDB, `dynamo`), the other series in the DuckDB file `side` opened. */
async function withS3Events(settings: S3EventsConfig, dataDir: string, dynamo: DynamoDBClient, side: LocalEvents): Promise<LocalEvents> {
  const s3 = s3EventsClient(settings);
  const bucket = { s3, bucket: settings.bucket };
  const opened = await openS3Events({ bucket, dynamo, table: settings.table, dir: join(dataDir, 's3-events'), createTable: true });
  const mirror = await opened.mirror();
  return {
    ...side,
    events: await opened.writer(),
    reports: await opened.reports(),
    ledger: new S3ImportLedger(mirror),
    siteData: new S3SiteData(bucket, opened.manifest, mirror, side.siteData),
    rowExport: new S3RowExport(mirror, side.rowExport),
    compactEvents: () => opened.compact(),
    duckdb: null,
    close: async () => {
      await opened.close();
      s3.destroy();
      await side.close();
    },
  };
}

export async function openLocalEvents(config: Readonly<Config>, dataDir: string, registrationsOf: RegistrationsOf, dynamo?: DynamoDBClient): Promise<LocalEvents> {
  if (config.s3Events && !config.clickhouse && dynamo) return withS3Events(config.s3Events, dataDir, dynamo, await openLocalEvents({ ...config, s3Events: null }, dataDir, registrationsOf));
  if (config.clickhouse) {
    const events = await ClickHouseEventStore.open(clickHouseHttpExecutor(config.clickhouse), config.clickhouse.database, log);
    return {
      events,
      reports: new ClickHouseReportStore(events, { log }),
      ledger: new ClickHouseImportLedger(events),
      apiRequests: new ClickHouseApiRequests(events.executor, events.database),
      searchStats: await ClickHouseSearchStats.open(events.executor, events.database),
      crawlerHits: new ClickHouseCrawlerHits(events.executor, events.database),
      siteData: new ClickHouseSiteData(events),
      rowExport: new ClickHouseRowExport(events.executor, events.database),
      compactEvents: null,
      duckdb: null,
      close: () => events.close(),
    };
  }
  const events = await DuckDbEventStore.open(join(dataDir, 'events.duckdb'), { log, registrationsOf, indexBytes: config.eventIndexBytes, memoryMb: config.duckdbMemoryMb });
  const apiRequests = await DuckDbApiRequests.open(events);
  const searchStats = await DuckDbSearchStats.open(events);
  const crawlerHits = await DuckDbCrawlerHits.open(events);
  const rowExport = new DuckDbRowExport(events.instance);
  return {
    events,
    // Reports read through the event store's pooled reader connections.
    reports: new DuckDbReportStore({ query: (sql, params) => events.query(sql, params) }, events, Date.now, log),
    ledger: new DuckDbImportLedger(events),
    apiRequests,
    searchStats,
    crawlerHits,
    siteData: new DuckDbSiteData(events, { api_requests: apiRequests, search_console: searchStats, crawler_hits: crawlerHits }),
    rowExport,
    compactEvents: null,
    duckdb: events,
    close: async () => {
      await apiRequests.close();
      await searchStats.close();
      await crawlerHits.close();
      rowExport.close();
      await events.close();
    },
  };
}
