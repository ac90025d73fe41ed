/**
 * The API-requests series in both stores, side by side: the tables (rows,
 * hourly rollup of everything, daily rollups per dimension value), how a
 * batch feeds the rollups, and the one read every API report is made of:
 * histogram rows (group, latency bucket, counters) for a plan's units
 * (domain/api-requests/read-plan.ts), rollups and rows alike.
 */
import { latencyBucketSql } from '#domain/api-requests/latency.ts';
import { DAY_MS, HOUR_MS, type ReadPlan } from '#domain/api-requests/read-plan.ts';
import type { ApiBreakdownDim, ApiFilter, ApiFilterDim } from '#ports/api-request-store.ts';
import { WITHOUT_DUCKDB } from './dialect.ts';

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

export const BREAKDOWN_DIMS: Record<ApiBreakdownDim, ApiFilterDim> = { routes: 'route', methods: 'method', statuses: 'status', consumers: 'consumer' };

/** A status filter value: an exact code, or a class such as `5xx`. */
export const isStatusClass = (value: string) => /^[1-5]xx$/.test(value);

/** Counters every part of a read sums, by dialect. */
const COUNTERS = {
  duckdb: `CAST(count(*) AS BIGINT) AS requests, CAST(count(*) FILTER (WHERE status BETWEEN 400 AND 499) AS BIGINT) AS client_errors,
           CAST(count(*) FILTER (WHERE status BETWEEN 500 AND 599) AS BIGINT) AS server_errors, CAST(sum(coalesce(bytes_out, 0)) AS BIGINT) AS bytes_out`,
  clickhouse: `toInt64(count()) AS requests, toInt64(countIf(status BETWEEN 400 AND 499)) AS client_errors,
               toInt64(countIf(status BETWEEN 500 AND 599)) AS server_errors, toInt64(sum(ifNull(bytes_out, 0))) AS bytes_out`,
};
const SUMS = ['requests', 'client_errors', 'server_errors', 'bytes_out'].map((c) => `CAST(sum(${c}) AS BIGINT) AS ${c}`).join(', ');

export type ApiDialect = 'duckdb' | 'clickhouse';

/** A read: a plan's units grouped by time group (`group`) or by a dimension's value (`name`). */
export interface ApiRead {
  plan: ReadPlan;
  filters: readonly ApiFilter[];
  /** Group by this dimension's value instead of the plan's groups. */
  by: ApiFilterDim | null;
  /** The rollup's dimension (days): the one filter clause's, or the breakdown's. */
  rollupDim: ApiFilterDim | null;
}

/** A filter clause as a predicate on rows (`row`) or on a daily rollup's value (`rolled`), with its parameter. */
function clause(dialect: ApiDialect, f: ApiFilter, i: number, rolled: boolean): { sql: string; name: string; value: string | number } {
  const name = `f${i}`;
  const p = dialect === 'duckdb' ? `$${name}` : `{${name}:String}`;
  const neq = f.op === 'neq';
  if (f.dim === 'status' && isStatusClass(f.value)) {
    const rows = dialect === 'duckdb' ? `status // 100 = CAST(${p} AS INTEGER)` : `intDiv(status, 100) = toInt32(${p})`;
    const sql = rolled ? `substr(value, 1, 1) = ${p} AND length(value) = 3` : rows;
    return { sql: neq ? `NOT (${sql})` : sql, name, value: f.value.slice(0, 1) };
  }
  const column = rolled ? 'value' : API_DIM_COLUMNS[f.dim][dialect];
  return { sql: `${column} ${neq ? '<>' : '='} ${p}`, name, value: f.value };
}

const param = (dialect: ApiDialect, name: string, type: 'String' | 'Int64' | 'Array(Int64)' | 'Array(Int32)') =>
  dialect === 'duckdb' ? `$${name}` : `{${name}:${type}}`;

/**
 * The statement of a read and its parameters: rows of (g or name, latency, counters). The rollup part
 * reads the plan's covered units, the row part every other unit in the range, each mapped to its group.
 */
export function apiReadStatement(dialect: ApiDialect, db: string, site: string, registration: string, read: ApiRead): { sql: string; params: Record<string, unknown> } {
  const { plan, filters, by, rollupDim } = read;
  const t = (table: string) => (dialect === 'clickhouse' ? `${db}.${table}` : table);
  const params: Record<string, unknown> = { site, registration, from: plan.from, to: plan.to, covered: plan.covered, coveredGroups: plan.coveredGroups, rowUnits: plan.rowUnits, rowGroups: plan.rowGroups, splitHours: plan.splitHours };
  const rowClauses = filters.map((f, i) => clause(dialect, f, i, false));
  for (const c of rowClauses) params[c.name] = c.value;
  const site$ = `site = ${param(dialect, 'site', 'String')} AND registration = ${param(dialect, 'registration', 'String')}`;
  const range$ = `ts >= ${param(dialect, 'from', 'Int64')} AND ts < ${param(dialect, 'to', 'Int64')}`;
  const key = by ? 'name' : 'g';
  const parts: string[] = [];
  const byRow = by ? API_DIM_COLUMNS[by][dialect] : null;
  if (plan.rollup && plan.covered.length > 0) {
    const rolledClauses = plan.rollup === 'day' ? filters.map((f, i) => clause(dialect, f, i, true)) : [];
    const dimWhere = plan.rollup === 'day' ? ` AND dim = '${rollupDim}'` + rolledClauses.map((c) => ` AND ${c.sql}`).join('') : '';
    const table = plan.rollup === 'hour' ? API_HOURS : API_DAYS;
    const groupOf =
      dialect === 'duckdb'
        ? by
          ? 'r.value'
          : 'c.g'
        : by
          ? 'value'
          : `transform(unit, ${param(dialect, 'covered', 'Array(Int64)')}, ${param(dialect, 'coveredGroups', 'Array(Int32)')}, -1)`;
    parts.push(
      dialect === 'duckdb'
        ? `SELECT ${groupOf} AS ${key}, r.latency, ${SUMS} FROM ${table} r
           JOIN (SELECT unnest($covered::BIGINT[]) AS unit, unnest($coveredGroups::INTEGER[]) AS g) c ON r.unit = c.unit
           WHERE r.site = $site AND r.registration = $registration AND r.unit >= $from AND r.unit < $to${dimWhere}
           GROUP BY ALL`
        : `SELECT ${groupOf} AS ${key}, latency, ${SUMS} FROM ${t(table)}
           WHERE ${site$} AND unit IN ${param(dialect, 'covered', 'Array(Int64)')}${dimWhere}
           GROUP BY ${key}, latency`,
    );
  }
  if (plan.rowUnits.length > 0) {
    const where = [site$, range$, ...rowClauses.map((c) => c.sql)].join(' AND ');
    if (dialect === 'duckdb') {
      const hour = `ts // ${HOUR_MS} * ${HOUR_MS}`;
      const unit = plan.splitHours.length === 0 ? hour : `CASE WHEN ${hour} IN (SELECT unnest($splitHours::BIGINT[])) THEN ts // ${HOUR_MS / 4} * ${HOUR_MS / 4} ELSE ${hour} END`;
      parts.push(
        `SELECT ${by ? 'r.name' : 'u.g'} AS ${key}, r.latency, ${SUMS} FROM (
           SELECT ${unit} AS unit, ${byRow ? `${byRow} AS name, ` : ''}${latencyBucketSql('duration_ms')} AS latency, ${COUNTERS.duckdb}
           FROM ${API_TABLE} WHERE ${where} GROUP BY ALL
         ) r JOIN (SELECT unnest($rowUnits::BIGINT[]) AS unit, unnest($rowGroups::INTEGER[]) AS g) u ON r.unit = u.unit
         GROUP BY ALL`,
      );
    } else {
      const unit = `if(has({splitHours:Array(Int64)}, intDiv(ts, ${HOUR_MS}) * ${HOUR_MS}), intDiv(ts, ${HOUR_MS / 4}) * ${HOUR_MS / 4}, intDiv(ts, ${HOUR_MS}) * ${HOUR_MS})`;
      parts.push(
        `SELECT ${by ? 'name' : 'g'} AS ${key}, latency, ${SUMS} FROM (
           SELECT transform(${unit}, {rowUnits:Array(Int64)}, {rowGroups:Array(Int32)}, -1) AS g, ${byRow ? `${byRow} AS name, ` : ''}${latencyBucketSql('duration_ms')} AS latency, ${COUNTERS.clickhouse}
           FROM ${t(API_TABLE)} WHERE ${where} GROUP BY ALL
         ) WHERE g >= 0 GROUP BY ${key}, latency`,
      );
    }
  }
  if (parts.length === 0) return { sql: '', params };
  const sql = `SELECT ${key}, latency, ${SUMS} FROM (${parts.join(' UNION ALL ')}) ${dialect === 'duckdb' ? 'p ' : ''}GROUP BY ${key}, latency`;
  return { sql, params };
}

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
