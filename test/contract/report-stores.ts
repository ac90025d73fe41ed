/**
 * Every ReportStore the report contract and its properties run against, with
 * the reason a store's suite cannot run here when it cannot. A store added to
 * the service is added here, and its differences from the others become
 * failing tests.
 */
import { TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { TimestreamWriteClient } from '@aws-sdk/client-timestream-write';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import { ClickHouseEventStore } from '#adapters/clickhouse/clickhouse-event-store.ts';
import { ClickHouseReportStore } from '#adapters/clickhouse/clickhouse-report-store.ts';
import { chdbExecutor } from '../support/chdb-executor.ts';
import { randomUUID } from 'node:crypto';
import { TimestreamEventStore } from '#adapters/timestream/timestream-event-store.ts';
import { TimestreamReportStore } from '#adapters/timestream/timestream-report-store.ts';
import { sqlIdentifier, sqlString } from '#domain/sql-literals.ts';
import { uniqueEvents, type EventRow } from '#domain/rows/event-row.ts';
import type { EventStore } from '#ports/event-store.ts';
import type { ReportStore } from '#ports/report-store.ts';
import { log } from '#platform/log.ts';
import { startLocalS3 } from '../support/s3-events.ts';

export interface ReportAdapter {
  events: EventStore;
  reports: ReportStore;
  close(): Promise<void>;
}

export interface StoreUnderTest {
  name: string;
  /** Why the contract cannot run here; null when it runs. */
  skip: string | null;
  /** Why the property tests cannot run here (they seed hundreds of batches); null when they run. */
  skipProperties: string | null;
  /** A test's time limit for this store. */
  testTimeout?: number;
  /**
   * The share of each property's seeded cases this store runs (default all): the first of the
   * same seeds' cases, its SQL checked against the same rules. DuckDB reading rollups runs them
   * all; DuckDB reading rows (whose SQL the rollups' equality properties also run) half; ClickHouse
   * a quarter, at twice DuckDB's cost per case (in-process chDB), which kept CI over its 15 minutes.
   */
  propertyShare?: number;
  open(): Promise<ReportAdapter>;
}

/** DuckDB as `npm start` runs it: sealed days from the daily rollups, built as reports ask for them. */
const duckdb: StoreUnderTest = {
  name: 'DuckDB',
  skip: null,
  skipProperties: null,
  async open() {
    const events = await DuckDbEventStore.open(':memory:', { log });
    return { events, reports: new DuckDbReportStore({ query: (sql, params) => events.query(sql, params) }, events), close: () => events.close() };
  },
};

/** DuckDB reading every row (no rollups): the reference the rollups must equal. */
const duckdbRows: StoreUnderTest = {
  name: 'DuckDB (rows only)',
  skip: null,
  skipProperties: null,
  propertyShare: 0.5,
  async open() {
    const events = await DuckDbEventStore.open(':memory:', { log });
    return { events, reports: new DuckDbReportStore({ query: (sql, params) => events.query(sql, params) }), close: () => events.close() };
  },
};

/**
 * ClickHouse's engine in-process (chDB), each open a database of its own: with `rollups`, sealed
 * days from its daily rollups as `npm start` reads them; without, every row (the reference the
 * rollups must equal).
 */
const clickhouseStore = (name: string, rollups: boolean): StoreUnderTest => ({
  name,
  skip: null,
  skipProperties: null,
  propertyShare: 0.25,
  async open() {
    const events = await ClickHouseEventStore.open(chdbExecutor(), `reports_${randomUUID().replaceAll('-', '')}`, log);
    return { events, reports: new ClickHouseReportStore(events, { rollups }), close: () => events.close() };
  },
});
const clickhouse = clickhouseStore('ClickHouse (chDB)', true);
const clickhouseRows = clickhouseStore('ClickHouse (chDB, rows only)', false);

const database = process.env.TT_TIMESTREAM_DATABASE ?? '';
const table = process.env.TT_TIMESTREAM_TABLE ?? '';
const awsConfigured = Boolean(process.env.AWS_ACCESS_KEY_ID && database && table);
/** How long a seeded batch may take to become visible to queries. */
const VISIBLE_WITHIN_MS = 240_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Real Amazon Timestream. Rows are seeded with TimestreamEventStore; the
 * table needs magnetic store writes enabled (the contract seeds 2024 dates
 * and rows 32 days old), as the stack's table has. Each save waits until
 * Timestream returns the rows, since magnetic store writes land asynchronously.
 */
const timestream: StoreUnderTest = {
  name: 'Timestream',
  skip: awsConfigured ? null : 'needs AWS credentials (AWS_ACCESS_KEY_ID) and a table (TT_TIMESTREAM_DATABASE, TT_TIMESTREAM_TABLE)',
  skipProperties: 'each seeded batch takes up to 4 minutes to become queryable on Timestream: the properties seed hundreds of batches',
  // Seeding waits for asynchronous magnetic store writes: well past the default 30 s.
  testTimeout: VISIBLE_WITHIN_MS * 20,
  async open() {
    const write = new TimestreamWriteClient({});
    const query = new TimestreamQueryClient({});
    const store = new TimestreamEventStore(write, database, table, { log });
    const reports = new TimestreamReportStore(query, database, table);
    /** Records of these rows that queries see now. */
    const visible = async (rows: readonly EventRow[]) => {
      const sites = [...new Set(rows.map((r) => r.site))].map(sqlString).join(', ');
      const ids = [...new Set(rows.map((r) => r.id))].map(sqlString).join(', ');
      const out = await reports.query(`SELECT count(*) AS "n" FROM ${sqlIdentifier(database)}.${sqlIdentifier(table)} WHERE site IN (${sites}) AND id IN (${ids})`);
      return Number(out[0]?.n ?? 0);
    };
    const events: EventStore = {
      async saveEvents(rows) {
        const before = { ...store.stats.rejected };
        await store.saveEvents(rows);
        const rejected = Object.entries(store.stats.rejected).filter(([reason, n]) => n !== (before[reason] ?? 0));
        if (rejected.length > 0) throw new Error(`Timestream rejected seeded rows: ${JSON.stringify(rejected)}`);
        const expected = uniqueEvents(rows).length;
        const deadline = Date.now() + VISIBLE_WITHIN_MS;
        while ((await visible(rows)) < expected) {
          if (Date.now() > deadline) throw new Error(`seeded rows not visible after ${VISIBLE_WITHIN_MS} ms`);
          await sleep(2_000);
        }
      },
      close: () => store.close(),
    };
    return {
      events,
      reports,
      close: async () => {
        write.destroy();
        query.destroy();
      },
    };
  },
};

/**
 * The S3 store (issue 44) over real local servers (s3rver, dynalite): Parquet files per site-day,
 * reports by the DuckDB dialect over its mirror. Its properties run a tenth of the seeded cases:
 * each seeded batch is a put and a conditional write per site-day, each read a manifest query.
 */
const s3: StoreUnderTest = {
  name: 'S3 (s3rver, dynalite)',
  skip: null,
  skipProperties: null,
  propertyShare: 0.1,
  async open() {
    const local = await startLocalS3();
    const events = await local.open();
    return { events: await events.writer(), reports: await events.reports(), close: () => local.close() };
  },
};

/** The stores by engine: suites too slow for one worker run each group in a file of its own. */
export const DUCKDB_STORES: readonly StoreUnderTest[] = [duckdb, duckdbRows];
export const CLICKHOUSE_STORES: readonly StoreUnderTest[] = [clickhouse, clickhouseRows];
export const TIMESTREAM_STORES: readonly StoreUnderTest[] = [timestream];
export const S3_STORES: readonly StoreUnderTest[] = [s3];
export const REPORT_STORES: readonly StoreUnderTest[] = [...DUCKDB_STORES, ...CLICKHOUSE_STORES, ...S3_STORES, ...TIMESTREAM_STORES];

/** The suite's title: the store, and why it is skipped when it is. */
export const titleOf = (suite: string, store: StoreUnderTest, skip: string | null) => `${suite}: ${store.name}${skip ? ` (skipped: ${skip})` : ''}`;
