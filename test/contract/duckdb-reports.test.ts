import { reportContract } from './report-store.contract.ts';
import { DuckDbEventStore } from '#adapters/duckdb/duckdb-event-store.ts';
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';

reportContract('DuckDB', async () => {
  const events = await DuckDbEventStore.open(':memory:');
  return { events, reports: new DuckDbReportStore({ query: (sql, params) => events.query(sql, params) }), close: () => events.close() };
});
