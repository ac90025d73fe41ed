/**
 * Report aggregates over the DuckDB `events` view: the report queries'
 * DuckDB dialect (functions/reports/sql), run on connections of the injected
 * read pool.
 */
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import { DuckDbSql } from '#reports/sql/dialects/duckdb.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import type { ReadPool } from './read-pool.ts';

/** Builds each statement in a fresh context, so its parameters are its own. */
export class DuckDbQueryRunner implements QueryRunner {
  constructor(private readonly pool: ReadPool) {}

  run<A extends unknown[]>(query: Query<A>, ...args: A): Promise<ResultRow[]> {
    const sql = new DuckDbSql();
    const text = query.duckdb(sql, ...args);
    return this.pool.query<ResultRow>(text, sql.params);
  }
}

export class DuckDbReportStore extends SqlReportStore {
  constructor(pool: ReadPool) {
    super(new DuckDbQueryRunner(pool));
  }
}
