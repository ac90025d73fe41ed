/**
 * The API-requests series as the stores write it (issue 36): the tables of
 * each dialect (rows, the hourly rollup of everything, the daily rollups per
 * dimension value) and how a batch feeds the rollups. Pure SQL text, shared
 * by the stores' writers and the reports' reads (functions/reports/sql/api-requests.ts).
 */
import type { ApiFilterDim } from '#ports/api-request-store.ts';
import { latencyBucketSql } from './latency.ts';
import { DAY_MS, HOUR_MS } from './read-plan.ts';

/** As functions/reports/sql/dialect.ts's: a Lambda bundle (TT_LAMBDA_BUNDLE=1) folds the DuckDB statements away. */
const WITHOUT_DUCKDB = undefined as never;

export const API_TABLE = 'api_requests';
export const API_HOURS = 'api_request_hours';
export const API_DAYS = 'api_request_days';

/** The rollups' dimensions and the row expression each keeps (a request without a consumer has the empty label). */
export const API_DIM_COLUMNS: Record<ApiFilterDim, { duckdb: string; clickhouse: string }> = {
  route: { duckdb: 'route', clickhouse: 'route' },
  method: { duckdb: 'method', clickhouse: 'method' },
  status: { duckdb: 'CAST(status AS VARCHAR)', clickhouse: 'toString(status)' },
  consumer: { duckdb: "coalesce(consumer, '')", clickhouse: "ifNull(consumer, '')" },
};

/** Counters every part of a read sums, by dialect. */
export const COUNTERS = {
  duckdb: `CAST(count(*) AS BIGINT) AS requests, CAST(count(*) FILTER (WHERE status BETWEEN 400 AND 499) AS BIGINT) AS client_errors,
           CAST(count(*) FILTER (WHERE status BETWEEN 500 AND 599) AS BIGINT) AS server_errors, CAST(sum(coalesce(bytes_out, 0)) AS BIGINT) AS bytes_out`,
  clickhouse: `toInt64(count()) AS requests, toInt64(countIf(status BETWEEN 400 AND 499)) AS client_errors,
               toInt64(countIf(status BETWEEN 500 AND 599)) AS server_errors, toInt64(sum(ifNull(bytes_out, 0))) AS bytes_out`,
};

export type ApiDialect = 'duckdb' | 'clickhouse';

/** The rollup rows of the requests in `source` (a table or subquery of request rows), for both tables. */
function rollupSelects(dialect: ApiDialect, source: string): { hours: string; days: Record<ApiFilterDim, string> } {
  const div = (ms: number) => (dialect === 'duckdb' ? `ts // ${ms} * ${ms}` : `intDiv(ts, ${ms}) * ${ms}`);
  const counters = COUNTERS[dialect];
  const latency = latencyBucketSql('duration_ms');
  const hours = `SELECT site, registration, ${div(HOUR_MS)} AS unit, ${latency} AS latency, ${counters} FROM ${source} GROUP BY site, registration, unit, latency`;
  const day = (dim: ApiFilterDim) =>
    `SELECT site, registration, ${div(DAY_MS)} AS unit, '${dim}' AS dim, ${API_DIM_COLUMNS[dim][dialect]} AS value, ${latency} AS latency, ${counters}
     FROM ${source} GROUP BY site, registration, unit, value, latency`;
  return { hours, days: { route: day('route'), method: day('method'), status: day('status'), consumer: day('consumer') } };
}

const COUNTER_UPDATES = ['requests', 'client_errors', 'server_errors', 'bytes_out'].map((c) => `${c} = ${c} + excluded.${c}`).join(', ');
const COUNTER_DEFS = (int: string) => ['requests', 'client_errors', 'server_errors', 'bytes_out'].map((c) => `${c} ${int} NOT NULL`).join(', ');

/** DuckDB: the tables, and the statements that store a staged batch (table `api_batch`, already without stored rows). */
export const DUCKDB_API =
  process.env.TT_LAMBDA_BUNDLE === '1'
    ? WITHOUT_DUCKDB
    : {
        tables: [
          `CREATE TABLE IF NOT EXISTS ${API_TABLE} (site VARCHAR NOT NULL, registration VARCHAR NOT NULL, ts BIGINT NOT NULL, id VARCHAR NOT NULL,
             method VARCHAR NOT NULL, route VARCHAR NOT NULL, status SMALLINT NOT NULL, duration_ms DOUBLE NOT NULL,
             bytes_in BIGINT, bytes_out BIGINT, consumer VARCHAR)`,
          `CREATE TABLE IF NOT EXISTS ${API_HOURS} (site VARCHAR NOT NULL, registration VARCHAR NOT NULL, unit BIGINT NOT NULL, latency INTEGER NOT NULL,
             ${COUNTER_DEFS('BIGINT')}, PRIMARY KEY (site, registration, unit, latency))`,
          `CREATE TABLE IF NOT EXISTS ${API_DAYS} (site VARCHAR NOT NULL, registration VARCHAR NOT NULL, unit BIGINT NOT NULL, dim VARCHAR NOT NULL,
             value VARCHAR NOT NULL, latency INTEGER NOT NULL, ${COUNTER_DEFS('BIGINT')}, PRIMARY KEY (site, registration, unit, dim, value, latency))`,
        ],
        store: (batch: string) => {
          const { hours, days } = rollupSelects('duckdb', batch);
          return [
            `INSERT INTO ${API_TABLE} SELECT * FROM ${batch}`,
            `INSERT INTO ${API_HOURS} ${hours} ON CONFLICT DO UPDATE SET ${COUNTER_UPDATES}`,
            `INSERT INTO ${API_DAYS} ${Object.values(days).join(' UNION ALL ')} ON CONFLICT DO UPDATE SET ${COUNTER_UPDATES}`,
          ];
        },
      };

/** ClickHouse: the tables; materialized views feed the rollups from every insert into the rows table. */
export function clickhouseApiTables(db: string, ident: (name: string) => string): string[] {
  const d = ident(db);
  const { hours, days } = rollupSelects('clickhouse', `${d}.${API_TABLE}`);
  return [
    `CREATE TABLE IF NOT EXISTS ${d}.${API_TABLE} (site String, registration String, ts Int64, id String, method LowCardinality(String), route String,
       status Int16, duration_ms Float64, bytes_in Nullable(Int64), bytes_out Nullable(Int64), consumer Nullable(String))
     ENGINE = ReplacingMergeTree PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(ts)) ORDER BY (site, registration, ts, id)`,
    `CREATE TABLE IF NOT EXISTS ${d}.${API_HOURS} (site String, registration String, unit Int64, latency Int32, ${COUNTER_DEFS('UInt64')})
     ENGINE = SummingMergeTree ORDER BY (site, registration, unit, latency)`,
    `CREATE TABLE IF NOT EXISTS ${d}.${API_DAYS} (site String, registration String, unit Int64, dim LowCardinality(String), value String, latency Int32, ${COUNTER_DEFS('UInt64')})
     ENGINE = SummingMergeTree ORDER BY (site, registration, dim, unit, value, latency)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${d}.${API_HOURS}_mv TO ${d}.${API_HOURS} AS ${hours}`,
    // One view per dimension: a view's UNION ALL would be fed by its first part only.
    ...Object.entries(days).map(([dim, select]) => `CREATE MATERIALIZED VIEW IF NOT EXISTS ${d}.${API_DAYS}_${dim}_mv TO ${d}.${API_DAYS} AS ${select}`),
  ];
}
