/**
 * Report queries are written once per store dialect, side by side in one file
 * per query (this folder, as Umami keeps its Prisma and ClickHouse SQL of a
 * query together): each file exports a `Query` with an entry per dialect, and
 * the dialect-independent code that maps its result rows. A dialect is a
 * statement context (dialects/*.ts: how values enter its SQL, how it reads
 * the event rows) and a runner in its adapter. Adding a dialect is a name and
 * context here and one entry per query file; the compiler lists the files
 * that still lack it.
 */
import type { ClickHouseSql } from './dialects/clickhouse.ts';
import type { DuckDbSql } from './dialects/duckdb.ts';
import type { TimestreamSql } from './dialects/timestream.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { SqlText } from './text.ts';

export interface DialectContexts {
  duckdb: DuckDbSql;
  timestream: TimestreamSql;
  clickhouse: ClickHouseSql;
}

export type DialectName = keyof DialectContexts;

/** The rows a scan reads: some kinds, of the sites' current registrations, from `from` (and before `to`). */
export interface ScanRange {
  kinds: readonly ('pageview' | 'event' | 'append')[];
  sites: readonly SiteRef[];
  /** Inclusive, Unix ms. */
  from: number;
  /** Exclusive, Unix ms; none for "since". */
  to?: number;
}

/**
 * The dialects whose stores keep no writer flags and decide copies when they
 * read (Timestream, ClickHouse): their statements are the same text over
 * these, written once in each query file.
 */
export interface ReadTimeSql extends SqlText {
  /** Rows that are no bot's. */
  readonly notBot: string;
  /** Distinct daily visitor hashes; pageviews without one count their unique flag. */
  readonly visitors: string;
  /** The rows of a range as a derived table with `ts` and the named columns. */
  scan(range: ScanRange, columns: readonly string[]): string;
  /** The rows of one kind in [from, to) that are no copies (domain/reports/copies.ts), as a derived table. */
  canonical(kind: ScanRange['kinds'][number], sites: readonly SiteRef[], from: number, to: number, columns: readonly string[]): string;
}

/** One statement (or fragment) per dialect, each built from its dialect's context and the same arguments. */
export type Query<A extends unknown[]> = { readonly [D in DialectName]: (sql: DialectContexts[D], ...args: A) => string };

export type ResultRow = Record<string, unknown>;

/** A store's way to run a query: build its dialect's statement in a fresh context and return the rows. */
export interface QueryRunner {
  run<A extends unknown[]>(query: Query<A>, ...args: A): Promise<ResultRow[]>;
}
