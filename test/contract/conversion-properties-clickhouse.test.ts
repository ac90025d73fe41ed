/** The goal and funnel properties (conversion-properties.contract.ts) on ClickHouse (chDB). */
import { afterAll } from 'vitest';
import { closeChdb } from '../support/chdb-executor.ts';
import { describeConversionProperties } from './conversion-properties.contract.ts';
import { CLICKHOUSE_STORES } from './report-stores.ts';

describeConversionProperties(CLICKHOUSE_STORES.slice(0, 1));

afterAll(closeChdb);
