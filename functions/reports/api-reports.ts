/**
 * The API reports' answers (issue 36), from the API-requests series and the
 * web overview's time plan: totals with error rate, the previous period, a
 * zero-filled series; breakdown rows. Shared by the handler and the tests.
 */
import { errorRate } from '#domain/api-reports/query.ts';
import { planOverview } from '#domain/reports/overview.ts';
import type { Range } from '#domain/reports/time.ts';
import type { ApiBreakdownDim, ApiFilter, ApiRequestStore, ApiTotals } from '#ports/api-request-store.ts';
import type { SiteRef } from '#ports/report-store.ts';
import { EMPTY_TOTALS } from './sql/api-store.ts';

export interface ApiReportRequest extends SiteRef {
  range: Range;
  tz: string;
  filters: readonly ApiFilter[];
}

const withRate = (t: ApiTotals) => ({
  requests: t.requests,
  client_errors: t.client_errors,
  server_errors: t.server_errors,
  error_rate: errorRate(t.server_errors, t.requests),
  p50_ms: t.p50_ms,
  p95_ms: t.p95_ms,
  p99_ms: t.p99_ms,
  bytes_out: t.bytes_out,
});

export async function getApiOverview(store: ApiRequestStore, q: ApiReportRequest) {
  const plan = planOverview(q.range, q.tz);
  const ref = { site: q.site, registration: q.registration, filters: q.filters };
  const [current, previous, series] = await Promise.all([
    store.apiTotals({ ...ref, from: q.range.from * 1000, to: q.range.to * 1000 }),
    store.apiTotals({ ...ref, from: plan.previous.from * 1000, to: plan.previous.to * 1000 }),
    store.apiSeries({ ...ref, boundaries: plan.boundaries }),
  ]);
  const byBucket = new Map(series.map((s) => [s.bucket, s]));
  return {
    totals: withRate(current),
    previous: withRate(previous),
    series: plan.starts.map((t, i) => ({ t, ...withRate(byBucket.get(i) ?? EMPTY_TOTALS) })),
    granularity: plan.granularity,
    previous_range: plan.previous,
  };
}

export async function getApiBreakdown(store: ApiRequestStore, q: Omit<ApiReportRequest, 'tz'>, dim: ApiBreakdownDim, limit: number) {
  const rows = await store.apiBreakdown({ site: q.site, registration: q.registration, filters: q.filters, from: q.range.from * 1000, to: q.range.to * 1000 }, dim, limit);
  return { rows: rows.map((r) => ({ name: r.name, requests: r.requests, server_errors: r.server_errors, error_rate: errorRate(r.server_errors, r.requests), p50_ms: r.p50_ms, p95_ms: r.p95_ms })) };
}
