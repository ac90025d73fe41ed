/** The report properties (report-properties.contract.ts) on ClickHouse (chDB) and, with AWS credentials, Timestream. */
import { afterAll } from 'vitest';
import { closeChdb } from '../support/chdb-executor.ts';
import { describeReportProperties } from './report-properties.contract.ts';
import { CLICKHOUSE_STORES, TIMESTREAM_STORES } from './report-stores.ts';

describeReportProperties([...CLICKHOUSE_STORES, ...TIMESTREAM_STORES]);
afterAll(closeChdb);
