/**
 * The one read every API report is made of, in both stores side by side
 * (their tables: domain/api-requests/series-sql.ts):
 * histogram rows (group, latency bucket, counters) for a plan's units
 * (domain/api-requests/read-plan.ts), rollups and rows alike.
 */
import { latencyBucketSql } from '#domain/api-requests/latency.ts';
import { HOUR_MS, type ReadPlan } from '#domain/api-requests/read-plan.ts';
import { API_DAYS, API_DIM_COLUMNS, API_HOURS, API_TABLE, COUNTERS, type ApiDialect } from '#domain/api-requests/series-sql.ts';
import type { ApiBreakdownDim, ApiFilter, ApiFilterDim } from '#ports/api-request-store.ts';



export const BREAKDOWN_DIMS: Record<ApiBreakdownDim, ApiFilterDim> = { routes: 'route', methods: 'method', statuses: 'status', consumers: 'consumer' };

/** A status filter value: an exact code, or a class such as `5xx`. */
export const isStatusClass = (value: string) => /^[1-5]xx$/.test(value);

const SUMS = ['requests', 'client_errors', 'server_errors', 'bytes_out'].map((c) => `CAST(sum(${c}) AS BIGINT) AS ${c}`).join(', ');


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


