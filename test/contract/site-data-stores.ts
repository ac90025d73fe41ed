/**
 * Every store that removes a site's rows (ports/site-data.ts), each opened with
 * all its series and a report store reading sealed days from its rollups, as
 * `npm start` reads them: DuckDB, and ClickHouse's engine in-process (chDB).
 */
import { randomUUID } from 'node:crypto';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import { DuckDbApiRequests } from '#adapters/duckdb/duckdb-api-requests.ts';
import { DuckDbSearchStats } from '#adapters/duckdb/duckdb-search-console.ts';
import { DuckDbCrawlerHits } from '#adapters/duckdb/duckdb-crawler-hits.ts';
import { DuckDbSiteData } from '#adapters/duckdb/duckdb-site-data.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { ClickHouseApiRequests } from '#adapters/clickhouse/clickhouse-api-requests.ts';
import { ClickHouseSearchStats } from '#adapters/clickhouse/clickhouse-search-console.ts';
import { ClickHouseCrawlerHits } from '#adapters/clickhouse/clickhouse-crawler-hits.ts';
import { ClickHouseSiteData } from '#adapters/clickhouse/clickhouse-site-data.ts';
import type { ApiRequestStore } from '#ports/api-request-store.ts';
import type { CrawlerHitStore } from '#ports/crawler-hits.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ReportStore } from '#ports/report-store.ts';
import type { SearchStatsStore } from '#ports/search-console.ts';
import type { SiteDataStore } from '#ports/site-data.ts';
import { chdbExecutor } from '../support/chdb-executor.ts';
import { log } from '#platform/log.ts';
import { S3SiteData } from '#adapters/s3-events/s3-site-data.ts';
import { startLocalS3 } from '../support/s3-events.ts';

export interface AllSeries {
  events: EventStore;
  reports: ReportStore;
  apiRequests: ApiRequestStore;
  searchStats: SearchStatsStore;
  crawlerHits: CrawlerHitStore;
  data: SiteDataStore;
  close(): Promise<void>;
}

/** Every series in one in-memory DuckDB file, as `npm start` keeps them. */
async function duckDbSeries(): Promise<AllSeries> {
  const events = await DuckDbEventStore.open(':memory:', { log });
  const apiRequests = await DuckDbApiRequests.open(events);
  const searchStats = await DuckDbSearchStats.open(events);
  const crawlerHits = await DuckDbCrawlerHits.open(events);
  return {
    events,
    reports: new DuckDbReportStore({ query: (sql, params) => events.query(sql, params) }, events),
    apiRequests,
    searchStats,
    crawlerHits,
    data: new DuckDbSiteData(events, { api_requests: apiRequests, search_console: searchStats, crawler_hits: crawlerHits }),
    close: async () => {
      await apiRequests.close();
      await searchStats.close();
      await crawlerHits.close();
      await events.close();
    },
  };
}

export const SITE_DATA_STORES: readonly { name: string; open(): Promise<AllSeries> }[] = [
  { name: 'DuckDB', open: duckDbSeries },
  {
    // As `npm start` with S3_EVENTS_URL keeps them: the events on S3, the other series in the DuckDB file.
    name: 'S3 (s3rver, dynalite)',
    async open() {
      const side = await duckDbSeries();
      const local = await startLocalS3();
      const s3 = await local.open();
      const mirror = await s3.mirror();
      return {
        ...side,
        events: await s3.writer(),
        reports: await s3.reports(),
        data: new S3SiteData({ s3: local.s3, bucket: local.bucket }, s3.manifest, mirror, side.data),
        close: async () => {
          await local.close();
          await side.close();
        },
      };
    },
  },
  {
    name: 'ClickHouse (chDB)',
    async open() {
      const db = `purge_${randomUUID().replaceAll('-', '')}`;
      const events = await ClickHouseEventStore.open(chdbExecutor(), db, log);
      return {
        events,
        reports: new ClickHouseReportStore(events, { rollups: true }),
        apiRequests: new ClickHouseApiRequests(events.executor, db),
        searchStats: await ClickHouseSearchStats.open(events.executor, db),
        crawlerHits: new ClickHouseCrawlerHits(events.executor, db),
        data: new ClickHouseSiteData(events),
        close: () => events.close(),
      };
    },
  },
];
