/** The report properties (report-properties.contract.ts) on DuckDB. */
import { describeReportProperties } from './report-properties.contract.ts';
import { DUCKDB_STORES } from './report-stores.ts';

describeReportProperties(DUCKDB_STORES);
