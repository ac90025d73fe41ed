/**
 * Port: the API-requests series (DuckDB, ClickHouse; not Timestream): the
 * writer appends ingested requests, the API reports and the alert checks read
 * them. All times are Unix milliseconds; ranges are [from, to).
 */
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { SiteRef } from './report-store.ts';

export type ApiFilterDim = 'route' | 'method' | 'status' | 'consumer';
/** `status` takes an exact code (`404`) or a class (`5xx`); the others compare exactly. `neq` keeps what does not match. */
export interface ApiFilter {
  dim: ApiFilterDim;
  op: 'eq' | 'neq';
  value: string;
}

export type ApiBreakdownDim = 'routes' | 'statuses' | 'methods' | 'consumers';

export interface ApiScope extends SiteRef {
  from: number;
  to: number;
  filters: readonly ApiFilter[];
}

export interface ApiTotals {
  requests: number;
  /** Status 400..499. */
  client_errors: number;
  /** Status 500..599. */
  server_errors: number;
  /** Percentiles of duration_ms; null without requests. */
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  bytes_out: number;
}

export interface ApiBreakdownRow {
  name: string;
  requests: number;
  server_errors: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface ApiDay {
  /** YYYY-MM-DD in the summary's timezone. */
  day: string;
  requests: number;
  server_errors: number;
}

export interface ApiRequestStore {
  /** Appends rows; idempotent on (site, registration, id, ts) like EventStore.saveEvents. */
  saveApiRequests(rows: readonly ApiRequestRow[]): Promise<void>;
  /** Totals over the scope's range. */
  apiTotals(scope: ApiScope): Promise<ApiTotals>;
  /** Totals per bucket: boundaries b0 < … < bn, bucket i is [b_i, b_{i+1}); buckets without rows are absent. */
  apiSeries(scope: Omit<ApiScope, 'from' | 'to'> & { boundaries: readonly number[] }): Promise<(ApiTotals & { bucket: number })[]>;
  /** Rows by requests descending, then name. */
  apiBreakdown(scope: ApiScope, dim: ApiBreakdownDim, limit: number): Promise<ApiBreakdownRow[]>;
  /** Requests and 5xx per day of the plan (boundaries b0 < … < bn in ms, day i labelled days[i]), sparse, per site. */
  apiDays(sites: readonly SiteRef[], plan: { boundaries: readonly number[]; days: readonly string[] }): Promise<Map<string, ApiDay[]>>;
}
