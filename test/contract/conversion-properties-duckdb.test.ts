/** The goal and funnel properties (conversion-properties.contract.ts) on DuckDB, reading rows as `npm start` does. */
import { describeConversionProperties } from './conversion-properties.contract.ts';
import { DUCKDB_STORES } from './report-stores.ts';

describeConversionProperties(DUCKDB_STORES.slice(0, 1));
