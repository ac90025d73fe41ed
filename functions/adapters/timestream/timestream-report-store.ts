/**
 * Report aggregates over Amazon Timestream for LiveAnalytics, reading the
 * records of timestream-event-store.ts: the report queries' Timestream
 * dialect (functions/reports/sql), run here (all pages), with typed result
 * rows turned into plain objects. Timestream is frozen at the first slice's
 * reports: a report that does not name it answers NotAvailableOnStoreError.
 *
 * A column exists in Timestream only once a record carried it (a new table
 * has none; utm_term may never come). Statements assume every column exists;
 * when Timestream refuses one (ValidationException), the table is described
 * and the statement rebuilt with typed NULLs for the missing columns. That
 * costs two more round trips, only on statements that name a column the table lacks.
 */
import {
  QueryCommand,
  type ColumnInfo,
  type Datum,
  type Row,
  type TimestreamQueryClient,
  type Type,
} from '@aws-sdk/client-timestream-query';
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { Query, QueryRunner } from '#reports/sql/dialect.ts';
import { TimestreamSql, describeSql, type ColumnName, type SqlContext } from '#reports/sql/dialects/timestream.ts';
import { SqlReportStore } from '#reports/sql/store.ts';

export type Value = string | number | bigint | boolean | null | Value[] | { [name: string]: Value };
export type PlainRow = Record<string, Value>;

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

export class TimestreamQueryRunner implements QueryRunner {
  readonly dialect = 'timestream';
  /** The DESCRIBE in flight, shared by the statements that failed meanwhile. */
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

  private context(columns: ReadonlySet<string> | null): TimestreamSql {
    const table: SqlContext = { database: this.database, table: this.table, has: (column: ColumnName) => !columns || columns.has(column) };
    return new TimestreamSql(table);
  }

  /**
   * Runs the statement built for a table with every column. Should Timestream
   * refuse it, the statement is built again for the columns the table has now
   * and run once more; when that changes nothing, the refusal stands. Nothing
   * is cached: a column missing a minute ago may exist now. The store is frozen: a query
   * written after it has no Timestream statement.
   */
  async run<A extends unknown[]>(query: Query<A, never>, ...args: A): Promise<PlainRow[]> {
    const build = query.timestream;
    if (!build) throw new NotAvailableOnStoreError();
    const sql = build(this.context(null), ...args);
    try {
      return await this.query(sql);
    } catch (e) {
      if (!isValidationError(e)) throw e;
      const again = build(this.context(await this.columns()), ...args);
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
}

export class TimestreamReportStore extends SqlReportStore {
  private readonly runner: TimestreamQueryRunner;

  constructor(client: TimestreamQueryClient, database: string, table: string) {
    const runner = new TimestreamQueryRunner(client, database, table);
    super(runner);
    this.runner = runner;
  }

  /** Runs a statement of the caller's (tests read what they seeded) and reads every page. */
  query(sql: string): Promise<PlainRow[]> {
    return this.runner.query(sql);
  }
}
