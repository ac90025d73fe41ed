/**
 * Report queries are written once per store dialect, side by side in one file
 * per query (this folder, as Umami keeps its Prisma and ClickHouse SQL of a
 * query together): each file exports a `Query` with an entry per dialect,
 * the dialect-independent code that maps its result rows, and the `Report`
 * the store answers (report.ts: its stores, and its rolled statements where
 * a store keeps daily rollups). A dialect is a statement context
 * (dialects/*.ts: how values enter its SQL, how it reads the event rows) and
 * a runner in its adapter. Adding a dialect is a name and context here and
 * one entry per query file; the compiler lists the files that still lack it
 * (a query may leave out Timestream, which is frozen).
 */
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import type { DuckDbSql } from './dialects/duckdb.ts';
import type { TimestreamSql } from './dialects/timestream.ts';

/**
 * What a query's DuckDB statement is in a Lambda bundle, where the condition
 * `process.env.TT_LAMBDA_BUNDLE === '1'` is set at build (lib/node-function.ts)
 * and the statement folds away: written beside each `duckdb:` entry.
 */
export const WITHOUT_DUCKDB = undefined as never;

export interface DialectContexts {
  duckdb: DuckDbSql;
  timestream: TimestreamSql;
  clickhouse: ClickHouseSql;
}

export type DialectName = keyof DialectContexts;

/** The dialects every query is written for. Timestream is frozen: it answers only the queries written for it so far. */
export type MaintainedDialect = 'duckdb' | 'clickhouse';

/** One dialect's statement (or fragment), built from its context and the query's arguments. */
export type Statement<D extends DialectName, A extends unknown[]> = (sql: DialectContexts[D], ...args: A) => string;

/**
 * One statement (or fragment) per dialect, each built from its dialect's context and the same
 * arguments: one for each of `D` (by default the maintained dialects), and any of the others a
 * store answers it with. A store whose dialect a query lacks answers NotAvailableOnStoreError.
 */
export type Query<A extends unknown[], D extends DialectName = MaintainedDialect> = { readonly [K in D]: Statement<K, A> } & {
  readonly [K in Exclude<DialectName, D>]?: Statement<K, A>;
};

export type ResultRow = Record<string, unknown>;

/** A store's way to run a query: build its dialect's statement in a fresh context and return the rows. */
export interface QueryRunner {
  readonly dialect: DialectName;
  run<A extends unknown[]>(query: Query<A, never>, ...args: A): Promise<ResultRow[]>;
}
