/**
 * Report aggregates over Amazon Timestream for LiveAnalytics, reading the
 * records of timestream-event-store.ts. The SQL is in report-sql.ts; this
 * runs it (all pages), turns the typed rows into plain objects and shapes
 * them like the DuckDB store does.
 *
 * A column exists in Timestream only once a record carried it (a new table
 * has none; utm_term may never come). Queries assume every column exists;
 * when Timestream refuses one (ValidationException), the table is described
 * and the query rebuilt with typed NULLs for the missing columns. That costs
 * two more round trips, only on queries that name a column the table lacks.
 */
import {
  QueryCommand,
  type ColumnInfo,
  type Datum,
  type Row,
  type TimestreamQueryClient,
  type Type,
} from '@aws-sdk/client-timestream-query';
import type { BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, Engagement, LabelDim, ReportScope, ReportStore, SiteRef, TrafficRow, TrafficScope } from '#ports/report-store.ts';
import {
  breakdownSql,
  describeSql,
  engagementSql,
  eventBreakdownSql,
  eventTotalsSql,
  livePagesSql,
  liveVisitorsSql,
  trafficCountsSql,
  trafficEngagementSql,
  type ColumnName,
  type SqlContext,
} from './report-sql.ts';

export type Value = string | number | bigint | boolean | null | Value[] | { [name: string]: Value };
export type PlainRow = Record<string, Value>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function parseScalar(type: Type | undefined, value: string): Value {
  switch (type?.ScalarType) {
    case 'BIGINT':
    case 'INTEGER': {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : BigInt(value);
    }
    case 'DOUBLE':
      return Number(value);
    case 'BOOLEAN':
      return value === 'true';
    default:
      // VARCHAR, and TIMESTAMP, DATE, TIME, intervals as Timestream prints them.
      return value;
  }
}

/** One Datum as a plain value, by its column type. */
export function parseDatum(type: Type | undefined, datum: Datum): Value {
  if (datum.NullValue) return null;
  if (datum.ScalarValue !== undefined) return parseScalar(type, datum.ScalarValue);
  if (datum.ArrayValue) return datum.ArrayValue.map((d) => parseDatum(type?.ArrayColumnInfo?.Type, d));
  if (datum.RowValue) return parseRow(type?.RowColumnInfo ?? [], datum.RowValue);
  if (datum.TimeSeriesValue) {
    const valueType = type?.TimeSeriesMeasureValueColumnInfo?.Type;
    return datum.TimeSeriesValue.map((p) => ({ time: p.Time ?? null, value: p.Value ? parseDatum(valueType, p.Value) : null }));
  }
  return null;
}

/** One result row as an object keyed by column name. */
export function parseRow(columns: readonly ColumnInfo[], row: Row): PlainRow {
  const out: PlainRow = {};
  (row.Data ?? []).forEach((datum, i) => {
    const column = columns[i];
    out[column?.Name ?? `_col${i}`] = parseDatum(column?.Type, datum);
  });
  return out;
}

const isValidationError = (e: unknown) => (e as { name?: string } | null)?.name === 'ValidationException';

export class TimestreamReportStore implements ReportStore {
  /** The DESCRIBE in flight, shared by the queries that failed meanwhile. */
  private describing: Promise<ReadonlySet<string>> | null = null;

  constructor(
    private readonly client: TimestreamQueryClient,
    private readonly database: string,
    private readonly table: string,
  ) {}

  /** Runs a statement and reads every page of its result. */
  async query(sql: string): Promise<PlainRow[]> {
    const rows: PlainRow[] = [];
    let nextToken: string | undefined;
    do {
      const out = await this.client.send(new QueryCommand({ QueryString: sql, ...(nextToken ? { NextToken: nextToken } : {}) }));
      const columns = out.ColumnInfo ?? [];
      for (const row of out.Rows ?? []) rows.push(parseRow(columns, row));
      nextToken = out.NextToken;
    } while (nextToken);
    return rows;
  }

  private context(columns: ReadonlySet<string> | null): SqlContext {
    return { database: this.database, table: this.table, has: (column: ColumnName) => !columns || columns.has(column) };
  }

  /**
   * Runs the SQL built for a table with every column. Should Timestream refuse
   * it, the SQL is built again for the columns the table has now and run once
   * more; when that changes nothing, the refusal stands. Nothing is cached: a
   * column missing a minute ago may exist now.
   */
  private async run(build: (ctx: SqlContext) => string): Promise<PlainRow[]> {
    const sql = build(this.context(null));
    try {
      return await this.query(sql);
    } catch (e) {
      if (!isValidationError(e)) throw e;
      const again = build(this.context(await this.columns()));
      if (again === sql) throw e;
      return this.query(again);
    }
  }

  /** The table's columns, as DESCRIBE lists them. */
  private columns(): Promise<ReadonlySet<string>> {
    this.describing ??= this.query(describeSql({ database: this.database, table: this.table }))
      .then((rows) => new Set(rows.map((r) => String(r.Column ?? Object.values(r)[0]))))
      .finally(() => {
        this.describing = null;
      });
    return this.describing;
  }

  /**
   * Per-bucket rows and the whole-range row come from separate queries (distinct
   * counts do not add up across buckets), and engagement from a third; all
   * run side by side.
   */
  async traffic(scope: TrafficScope): Promise<TrafficRow[]> {
    if (scope.sites.length === 0) return [];
    const bounds = scope.boundaries;
    const whole = { ...scope, boundaries: [bounds[0]!, bounds[bounds.length - 1]!] };
    const perBucket = bounds.length > 2;
    const [buckets, totals, engagement] = await Promise.all([
      perBucket ? this.run((ctx) => trafficCountsSql(ctx, scope, true)) : Promise.resolve([]),
      this.run((ctx) => trafficCountsSql(ctx, whole, false)),
      this.run((ctx) => trafficEngagementSql(ctx, scope)),
    ]);
    const key = (r: PlainRow) => `${String(r.site)}\n${String(r.bucket ?? '')}`;
    const extra = new Map(engagement.map((r) => [key(r), r]));
    // Buckets in order (callers list days as they come), then the whole-range rows; with one bucket the whole range is that bucket.
    const inOrder = (a: PlainRow, b: PlainRow) => (String(a.site) < String(b.site) ? -1 : String(a.site) > String(b.site) ? 1 : num(a.bucket) - num(b.bucket));
    const rows: PlainRow[] = perBucket ? [...buckets.sort(inOrder), ...totals] : [...totals, ...totals.map((r) => ({ ...r, bucket: 0 }))];
    return rows.map((r) => {
      const e = extra.get(key(r));
      return {
        site: String(r.site),
        bucket: r.bucket === null || r.bucket === undefined ? null : num(r.bucket),
        pageviews: num(r.pageviews),
        visitors: num(r.visitors),
        duration: numOrNull(e?.duration),
        scrolled: numOrNull(e?.scrolled),
      };
    });
  }

  async liveVisitors(sites: readonly SiteRef[], since: number): Promise<Map<string, number>> {
    if (sites.length === 0) return new Map();
    const rows = await this.run((ctx) => liveVisitorsSql(ctx, sites, since));
    return new Map(rows.map((r) => [String(r.site), num(r.visitors)]));
  }

  async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    if (dim === 'events') {
      const rows = await this.run((ctx) => eventBreakdownSql(ctx, scope, limit));
      return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors), last_seen: num(r.last_seen) }));
    }
    const rows = await this.run((ctx) => breakdownSql(ctx, scope, dim, limit));
    return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors) }));
  }

  async breakdowns<D extends LabelDim>(scope: ReportScope, dims: readonly D[], limit: number): Promise<Record<D, BreakdownRow[]>> {
    const lists = await Promise.all(dims.map((dim) => this.breakdown(scope, dim, limit)));
    return Object.fromEntries(dims.map((dim, i) => [dim, lists[i]])) as Record<D, BreakdownRow[]>;
  }

  async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const [r] = await this.run((ctx) => eventTotalsSql(ctx, scope));
    return { count: num(r?.count), visitors: num(r?.visitors) };
  }

  async livePages(scope: Omit<ReportScope, 'from' | 'to'> & { since: number }, limit: number) {
    const rows = await this.run((ctx) => livePagesSql(ctx, scope, limit));
    return rows.map((r) => ({ name: String(r.name ?? ''), visitors: num(r.visitors) }));
  }

  async engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    const [r] = await this.run((ctx) => engagementSql(ctx, scope, durations, scrolls));
    return {
      measured: num(r?.measured),
      scrollMeasured: num(r?.scroll_measured),
      durationAtLeast: Object.fromEntries(durations.map((sec, i) => [sec, num(r?.[`d${i}`])])),
      scrollAtLeast: Object.fromEntries(scrolls.map((pct, i) => [pct, num(r?.[`s${i}`])])),
    };
  }
}
