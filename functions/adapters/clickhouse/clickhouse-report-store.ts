/**
 * Report aggregates over the ClickHouse events table: the report queries'
 * ClickHouse dialect (functions/reports/sql), run through the executor.
 */
import type { Query, QueryRunner, ResultRow } from '#reports/sql/dialect.ts';
import { ClickHouseSql } from '#reports/sql/dialects/clickhouse.ts';
import { SqlReportStore } from '#reports/sql/store.ts';
import type { ClickHouseEventStore } from './clickhouse-event-store.ts';

/** LEFT JOINs give NULLs for missing rows, as every dialect's SQL expects (the HTTP executor sets it per session too). */
const REPORT_SETTINGS = ' SETTINGS join_use_nulls = 1';

/** Builds each statement in a fresh context, so its parameters are its own. */
export class ClickHouseQueryRunner implements QueryRunner {
  constructor(private readonly events: ClickHouseEventStore) {}

  run<A extends unknown[]>(query: Query<A>, ...args: A): Promise<ResultRow[]> {
    const sql = new ClickHouseSql(this.events.table);
    const text = query.clickhouse(sql, ...args);
    return this.events.executor.query<ResultRow>(text + REPORT_SETTINGS, sql.params);
  }
}

export class ClickHouseReportStore extends SqlReportStore {
  constructor(events: ClickHouseEventStore) {
    super(new ClickHouseQueryRunner(events));
  }
}
