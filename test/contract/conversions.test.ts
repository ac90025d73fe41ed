/** The goals, funnels and event metadata contract against every report store that keeps them. */
import { afterAll } from 'vitest';
import { closeChdb } from '../support/chdb-executor.ts';
import { CLICKHOUSE_STORES, DUCKDB_STORES, S3_STORES } from './report-stores.ts';
import { conversionsContract } from './conversions.contract.ts';

for (const store of [...DUCKDB_STORES, ...CLICKHOUSE_STORES, ...S3_STORES]) conversionsContract(store);

afterAll(closeChdb);
