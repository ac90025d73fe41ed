/**
 * The one read every API report is made of, in both stores side by side
 * (their tables: domain/api-requests/series-sql.ts):
 * histogram rows (group, latency bucket, counters) for a plan's units
 * (domain/api-requests/read-plan.ts), rollups and rows alike.
 */
import { latencyBucketSql } from '#domain/api-requests/latency.ts';
import type { ReadPlan, Span } from '#domain/api-requests/read-plan.ts';
import { sqlInteger } from '#domain/sql-literals.ts';
import { API_DAYS, API_DIM_COLUMNS, API_HOURS, API_TABLE, COUNTERS, type ApiDialect } from '#domain/api-requests/series-sql.ts';
import type { ApiBreakdownDim, ApiFilter, ApiFilterDim } from '#ports/api-request-store.ts';



export const BREAKDOWN_DIMS: Record<ApiBreakdownDim, ApiFilterDim> = { routes: 'route', methods: 'method', statuses: 'status', consumers: 'consumer' };

/** A status filter value: an exact code, or a class such as `5xx`. */
export const isStatusClass = (value: string) => /^[1-5]xx$/.test(value);

/** The counters' sums (of table `alias`'s columns, or unqualified). */
const SUMS_OF = (alias: string | null) => ['requests', 'client_errors', 'server_errors', 'bytes_out'].map((c) => `CAST(sum(${alias ? `${alias}.` : ''}${c}) AS BIGINT) AS ${c}`).join(', ');


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

const param = (dialect: ApiDialect, name: string, type: 'String' | 'Int64') => (dialect === 'duckdb' ? `$${name}` : `{${name}:${type}}`);

/** Spans written into the statement as range tests rather than joined: a join costs more than a few comparisons per row. */
const INLINE_SPANS = 8;

/**
 * The span of each unit (rollup unit or row time) and its group. A few spans are range tests in the
 * statement; more are joined: DuckDB ASOF-joins them on their start, ClickHouse finds the first ending after it.
 */
function spanPart(dialect: ApiDialect, prefix: string, at: string, spans: readonly Span[]): { from: string; group: string; where: string } {
  if (spans.length <= INLINE_SPANS) {
    const test = (x: Span) => `(${at} >= ${sqlInteger(x.start)} AND ${at} < ${sqlInteger(x.end)})`;
    const groups = new Set(spans.map((x) => x.group));
    const group = groups.size === 1 ? String(spans[0]?.group ?? 0) : `CASE ${spans.map((x) => `WHEN ${test(x)} THEN ${sqlInteger(x.group)}`).join(' ')} END`;
    return { from: '', group, where: `(${spans.map(test).join(' OR ')})` };
  }
  if (dialect === 'duckdb') {
    return {
      from: `ASOF JOIN (SELECT unnest($${prefix}s::BIGINT[]) AS s, unnest($${prefix}e::BIGINT[]) AS e, unnest($${prefix}g::INTEGER[]) AS g) ${prefix} ON ${at} >= ${prefix}.s`,
      group: `${prefix}.g`,
      where: `${at} < ${prefix}.e`,
    };
  }
  const i = `arrayFirstIndex(x -> x > ${at}, {${prefix}e:Array(Int64)})`;
  return { from: '', group: `{${prefix}g:Array(Int32)}[${i}]`, where: `${i} > 0 AND ${at} >= {${prefix}s:Array(Int64)}[${i}]` };
}

/**
 * The statement of a read and its parameters: rows of (g or name, latency, counters). The rollup part
 * reads the plan's covered spans, the row part its other spans, each mapped to its group.
 */
export function apiReadStatement(dialect: ApiDialect, db: string, site: string, registration: string, read: ApiRead): { sql: string; params: Record<string, unknown> } {
  const { plan, filters, by, rollupDim } = read;
  const t = (table: string) => (dialect === 'clickhouse' ? `${db}.${table}` : table);
  const params: Record<string, unknown> = {
    site,
    registration,
    from: plan.from,
    to: plan.to,
    cs: plan.covered.map((x) => x.start),
    ce: plan.covered.map((x) => x.end),
    cg: plan.covered.map((x) => x.group),
    us: plan.rows.map((x) => x.start),
    ue: plan.rows.map((x) => x.end),
    ug: plan.rows.map((x) => x.group),
  };
  const rowClauses = filters.map((f, i) => clause(dialect, f, i, false));
  for (const c of rowClauses) params[c.name] = c.value;
  const site$ = `site = ${param(dialect, 'site', 'String')} AND registration = ${param(dialect, 'registration', 'String')}`;
  const key = by ? 'name' : 'g';
  const parts: string[] = [];
  if (plan.rollup && plan.covered.length > 0) {
    const rolledClauses = plan.rollup === 'day' ? filters.map((f, i) => clause(dialect, f, i, true)) : [];
    const dimWhere = plan.rollup === 'day' ? ` AND dim = '${rollupDim}'` + rolledClauses.map((c) => ` AND ${c.sql}`).join('') : '';
    const table = plan.rollup === 'hour' ? API_HOURS : API_DAYS;
    const span = spanPart(dialect, 'c', 'r.unit', plan.covered);
    parts.push(
      `SELECT ${by ? 'r.value' : span.group} AS ${key}, r.latency AS latency, ${SUMS_OF('r')} FROM ${t(table)} AS r ${span.from}
       WHERE r.${site$.replace('registration =', 'r.registration =')} AND r.unit >= ${param(dialect, 'from', 'Int64')} AND r.unit < ${param(dialect, 'to', 'Int64')}${dimWhere.replaceAll(' dim ', ' r.dim ').replaceAll('value', 'r.value')} AND ${span.where}
       GROUP BY ${key}, latency`,
    );
  }
  if (plan.rows.length > 0) {
    const span = spanPart(dialect, 'u', 'r.ts', plan.rows);
    const where = [`r.${site$.replace('registration =', 'r.registration =')}`, `r.ts >= ${param(dialect, 'from', 'Int64')} AND r.ts < ${param(dialect, 'to', 'Int64')}`, ...rowClauses.map((c) => c.sql), span.where].join(' AND ');
    const byRow = by ? API_DIM_COLUMNS[by][dialect] : null;
    parts.push(
      `SELECT ${byRow ? byRow.replace(/\b(route|method|status|consumer)\b/g, 'r.$1') : span.group} AS ${key}, ${latencyBucketSql('r.duration_ms')} AS latency, ${COUNTERS[dialect].replace(/(?<!AS )\b(status|bytes_out)\b/g, 'r.$1')}
       FROM ${t(API_TABLE)} AS r ${span.from} WHERE ${where} GROUP BY ${key}, latency`,
    );
  }
  if (parts.length === 0) return { sql: '', params };
  const sql = `SELECT ${key}, latency, ${SUMS_OF(null)} FROM (${parts.join(' UNION ALL ')}) AS p GROUP BY ${key}, latency`;
  return { sql, params };
}


