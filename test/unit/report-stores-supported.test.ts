/**
 * Reports name the stores they support. Timestream is frozen at the first
 * slice's reports: a later report, written for DuckDB and ClickHouse only, is
 * refused on it before any statement is sent, with the one refusal the edge
 * answers 501 `not available with the Timestream event store`.
 */
import { QueryCommand, TimestreamQueryClient } from '@aws-sdk/client-timestream-query';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { ReportScope } from '#ports/report-store.ts';
import { TimestreamReportStore } from '#adapters/timestream/timestream-report-store.ts';
import { DuckDbReportStore } from '#adapters/duckdb/duckdb-report-store.ts';
import { createGroupHandler, json, type ApiRequest } from '#http/api.ts';
import type { Query } from '#reports/sql/dialect.ts';
import { MAINTAINED_STORES, type Report } from '#reports/sql/report.ts';
import { breakdownReport } from '#reports/sql/breakdown.ts';
import { eventTotalsReport } from '#reports/sql/event-totals.ts';
import { livePagesReport } from '#reports/sql/live-pages.ts';
import { liveVisitorsReport } from '#reports/sql/live-visitors.ts';
import { retentionReport } from '#reports/sql/retention.ts';
import { summaryListsReport } from '#reports/sql/summary-lists.ts';
import { techListsReport } from '#reports/sql/tech-lists.ts';
import { trafficEngagementReport } from '#reports/sql/traffic-engagement.ts';
import { trafficCountsReport } from '#reports/sql/traffic.ts';

const timestream = mockClient(TimestreamQueryClient);
afterEach(() => timestream.reset());

const store = () => new TimestreamReportStore(new TimestreamQueryClient({ region: 'eu-west-1' }), 'tt-db', 'events');
const scope: ReportScope = { site: 'a.example', registration: 'reg-a', from: 0, to: 86_400_000, filters: [] };

/** A later capability's query: no Timestream statement. */
const pageCount: Query<[scope: ReportScope]> = {
  duckdb: () => 'SELECT 1 AS n',
  clickhouse: () => 'SELECT 1 AS "n"',
};
const laterReport: Report<[scope: ReportScope], number> = {
  stores: MAINTAINED_STORES,
  rows: async (db, s) => (await db.run(pageCount, s)).length,
};

describe('a report a store does not support', () => {
  it('is refused on Timestream before any statement is sent', async () => {
    await expect(store().answer(laterReport, scope)).rejects.toBeInstanceOf(NotAvailableOnStoreError);
    expect(timestream.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('is refused likewise for a query without a Timestream statement', async () => {
    await expect(store().run(pageCount, scope)).rejects.toBeInstanceOf(NotAvailableOnStoreError);
    expect(timestream.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('is answered by the stores it names', async () => {
    const duckdb = new DuckDbReportStore({ query: async <T,>() => [{ n: 1 }] as T[] } as never);
    expect(await duckdb.answer(laterReport, scope)).toBe(1);
  });

  it('is answered 501 with the one text by the edge', async () => {
    const reports = store();
    const group = createGroupHandler({ 'GET /api/sites/{hostname}/later': async () => json(200, { n: await reports.answer(laterReport, scope) }) });
    const request: ApiRequest = { method: 'GET', path: '/api/sites/a.example/later', params: { hostname: 'a.example' }, query: {}, headers: {}, body: Buffer.alloc(0), sourceIp: '127.0.0.1', services: {} as never };
    const answer = await group.serve(request, 'GET /api/sites/{hostname}/later');
    expect([answer.statusCode, JSON.parse(answer.body ?? '{}')]).toEqual([501, { error: 'not available with the Timestream event store' }]);
  });
});

describe("the first slice's reports", () => {
  it('all name Timestream, which still answers them', () => {
    const firstSlice = [trafficCountsReport, trafficEngagementReport, liveVisitorsReport, breakdownReport, techListsReport, summaryListsReport, eventTotalsReport, livePagesReport, retentionReport];
    for (const report of firstSlice) expect(report.stores).toEqual(expect.arrayContaining(['duckdb', 'timestream', 'clickhouse']));
  });
});

describe('goals, funnels and event metadata (issue 37)', () => {
  const goal = { type: 'event' as const, match: 'signup' };
  it('are refused on Timestream before any statement is sent, the goal filter of a first-slice report too', async () => {
    const reports = store();
    await expect(reports.goalStats(scope, [goal])).rejects.toBeInstanceOf(NotAvailableOnStoreError);
    await expect(reports.funnel(scope, [goal, goal])).rejects.toBeInstanceOf(NotAvailableOnStoreError);
    await expect(reports.eventMetadata(scope, 'signup', null, 10)).rejects.toBeInstanceOf(NotAvailableOnStoreError);
    const converted = { ...scope, filters: [{ dim: 'goal' as const, op: 'eq' as const, value: 'g', goal: { ...goal, site: scope.site, registration: scope.registration }, window: { from: 0, to: 1 } }] };
    await expect(reports.breakdown(converted, 'pages', 10)).rejects.toBeInstanceOf(NotAvailableOnStoreError);
    expect(timestream.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

describe('the exit_pages breakdown (issue 40)', () => {
  it('is refused on Timestream before any statement is sent, while the other breakdowns are not', async () => {
    const reports = store();
    await expect(reports.breakdown(scope, 'exit_pages', 10)).rejects.toBeInstanceOf(NotAvailableOnStoreError);
    expect(timestream.commandCalls(QueryCommand)).toHaveLength(0);
    await expect(reports.breakdown(scope, 'entry_pages', 10)).rejects.not.toBeInstanceOf(NotAvailableOnStoreError);
    expect(timestream.commandCalls(QueryCommand)).toHaveLength(1);
  });
});
