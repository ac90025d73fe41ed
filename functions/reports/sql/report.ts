/**
 * What a query file exports for the store to answer: a `Report` names the
 * stores it supports, gives its answer from the rows (its statements per
 * dialect, dialect.ts), and, where a store keeps daily rollups, its rolled
 * statement per dialect with the rollups it needs. Which days the rollups
 * answer is reports/plan.ts's decision; the stores execute it (store.ts and
 * the adapters). A new report is one query file and its test: no store
 * adapter learns anything of it, and SqlReportStore answers its port method
 * with `this.answer(report, …)`.
 */
import type { ReportScope } from '#ports/report-store.ts';
import type { RollupNeed, RollupRead, SubjectRows } from '../plan.ts';
import type { DialectName, Query, ResultRow } from './dialect.ts';
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import type { RolledDays, RolledPart, RolledTables } from './dialects/clickhouse-rollups.ts';
import type { DuckDbSql } from './dialects/duckdb.ts';
import type { SealedDays } from './sealed-days.ts';

/** What a report's answer from the rows reads with: the store's statements, and its answers to other reports. */
export interface ReportReader {
  readonly dialect: DialectName;
  run<A extends unknown[]>(query: Query<A, never>, ...args: A): Promise<ResultRow[]>;
  answer<A extends unknown[], R>(report: Report<A, R>, ...args: A): Promise<R>;
}

/** A report's reading of a store's rollups: what it needs, over which read, its statement and how its rows answer. */
interface Rolled<A extends unknown[], R, Read, Sql> {
  readonly need: RollupNeed;
  /** The read the plan is made for (plan.ts: the rows answer one of several sites alone); with a subject, of its variant. */
  read(...args: A): RollupRead;
  readonly statement: Read;
  answer(rows: ResultRow[], ...args: A): R;
  /** The subject whose rollups the report counts itself, when it does (the store builds them). */
  subject?(...args: A): SubjectRows<Sql>;
}

/**
 * DuckDB: one statement over the named days (dialects/duckdb-rollups.ts), each of its rows
 * carrying `still_built`.
 */
export type DuckDbRolled<A extends unknown[], R> = Rolled<A, R, (sql: DuckDbSql, days: SealedDays, ...args: A) => string, DuckDbSql>;

/**
 * ClickHouse: with `split`, a sealed and an open statement of partial sums (dialects/clickhouse-rollups.ts
 * RolledPart) whose rows `answer` adds up; without, one whole statement. A part with nothing to read is null.
 */
export type ClickHouseRolled<A extends unknown[], R> = Rolled<A, R, (sql: ClickHouseSql, tables: RolledTables, days: RolledDays, part: RolledPart, ...args: A) => string | null, ClickHouseSql> & {
  readonly split: boolean;
};

export interface Report<A extends unknown[], R> {
  /** The stores that answer it; any other answers NotAvailableOnStoreError. Timestream is frozen: a new report leaves it out. */
  readonly stores: readonly DialectName[];
  /** Its answer from the rows. */
  rows(db: ReportReader, ...args: A): Promise<R>;
  /** Its answer from the daily rollups where a store keeps them (and the plan names days): per dialect. */
  readonly rolled?: { readonly duckdb?: DuckDbRolled<A, R>; readonly clickhouse?: ClickHouseRolled<A, R> };
}

/** The stores of a report of the first slice (overview, summary, breakdowns, retention), which Timestream answers too. */
export const FIRST_SLICE_STORES: readonly DialectName[] = ['duckdb', 'timestream', 'clickhouse'];
/** The stores of any later report: the ones new capabilities are written and tested for. */
export const MAINTAINED_STORES: readonly DialectName[] = ['duckdb', 'clickhouse'];

/** The rollup read of one site's range. */
export const readOf = (scope: ReportScope): RollupRead => ({ sites: [scope], from: scope.from, to: scope.to, filters: scope.filters });
