/**
 * The API reports over either SQL store: which units a read takes from the
 * rollups (domain/api-requests/read-plan.ts), the one statement that reads
 * them (api-requests.ts) and the folding of its histogram rows into totals,
 * series, breakdown rows and days. Store adapters add how they run a
 * statement and how they store a batch.
 */
import { histogramPercentiles } from '#domain/api-requests/latency.ts';
import { DAY_MS, planRead, type RollupUnit } from '#domain/api-requests/read-plan.ts';
import type { ApiRequestRow } from '#domain/api-requests/request-row.ts';
import type { ApiBreakdownDim, ApiBreakdownRow, ApiDay, ApiFilter, ApiFilterDim, ApiRequestStore, ApiScope, ApiTotals } from '#ports/api-request-store.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { ApiDialect } from '#domain/api-requests/series-sql.ts';
import { apiReadStatement, BREAKDOWN_DIMS, type ApiRead } from './api-requests.ts';
import { Serial } from '#domain/serial.ts';

export interface HistogramRow {
  g?: number | bigint;
  name?: string;
  latency: number | bigint;
  requests: number | bigint;
  client_errors: number | bigint;
  server_errors: number | bigint;
  bytes_out: number | bigint;
}

const PERCENTILES = [0.5, 0.95, 0.99];

/** Counters and a histogram being added up. */
class Tally {
  requests = 0;
  client_errors = 0;
  server_errors = 0;
  bytes_out = 0;
  readonly histogram: [number, number][] = [];

  add(r: HistogramRow): void {
    const n = Number(r.requests);
    this.requests += n;
    this.client_errors += Number(r.client_errors);
    this.server_errors += Number(r.server_errors);
    this.bytes_out += Number(r.bytes_out);
    this.histogram.push([Number(r.latency), n]);
  }

  totals(): ApiTotals {
    const [p50, p95, p99] = histogramPercentiles(this.histogram, PERCENTILES);
    return {
      requests: this.requests,
      client_errors: this.client_errors,
      server_errors: this.server_errors,
      p50_ms: p50 ?? null,
      p95_ms: p95 ?? null,
      p99_ms: p99 ?? null,
      bytes_out: this.bytes_out,
    };
  }
}

export const EMPTY_TOTALS: ApiTotals = new Tally().totals();

/** Every request has exactly one method: the daily rollup of methods, summed, is the daily rollup of everything. */
const EVERY_REQUEST: ApiFilterDim = 'method';

const alignedToDays = (boundaries: readonly number[]) => boundaries.slice(1, -1).every((b) => b % DAY_MS === 0);

/**
 * The rollup a read can use: unfiltered, the daily one (of methods, summed) when its groups are whole UTC
 * days or it has one group, else the hourly one; one dimension's filter or breakdown, that dimension's daily
 * one; more than one dimension, none (rows).
 */
function rollupFor(boundaries: readonly number[], filters: readonly ApiFilter[], by: ApiFilterDim | null): { rollup: RollupUnit | null; rollupDim: ApiFilterDim | null } {
  const dims = new Set(filters.map((f) => f.dim));
  if (by) {
    if (dims.size === 0 || (dims.size === 1 && dims.has(by))) return { rollup: 'day', rollupDim: by };
    return { rollup: null, rollupDim: null };
  }
  if (filters.length === 0) return alignedToDays(boundaries) ? { rollup: 'day', rollupDim: EVERY_REQUEST } : { rollup: 'hour', rollupDim: null };
  if (dims.size === 1) return { rollup: 'day', rollupDim: filters[0]?.dim ?? null };
  return { rollup: null, rollupDim: null };
}

export abstract class SqlApiRequestStore implements ApiRequestStore {
  protected abstract readonly dialect: ApiDialect;
  private readonly writes = new Serial();

  /** Runs writes one after another (each once the one before has settled). */
  protected inTurn(task: () => Promise<void>): Promise<void> {
    return this.writes.run(task);
  }

  /** Resolves once every write asked for so far has settled. */
  protected settled(): Promise<unknown> {
    return this.writes.settled();
  }
  /** The database the ClickHouse tables live in (unused by DuckDB). */
  protected readonly database: string = '';

  abstract saveApiRequests(rows: readonly ApiRequestRow[]): Promise<void>;
  protected abstract run(sql: string, params: Record<string, unknown>): Promise<HistogramRow[]>;

  private async histogram(ref: SiteRef, boundaries: readonly number[], filters: readonly ApiFilter[], by: ApiFilterDim | null): Promise<HistogramRow[]> {
    const { rollup, rollupDim } = rollupFor(boundaries, filters, by);
    const read: ApiRead = { plan: planRead(boundaries, rollup), filters, by, rollupDim };
    const { sql, params } = apiReadStatement(this.dialect, this.database, ref.site, ref.registration, read);
    return sql === '' ? [] : this.run(sql, params);
  }

  async apiTotals(scope: ApiScope): Promise<ApiTotals> {
    if (scope.to <= scope.from) return EMPTY_TOTALS;
    const tally = new Tally();
    for (const r of await this.histogram(scope, [scope.from, scope.to], scope.filters, null)) tally.add(r);
    return tally.totals();
  }

  async apiSeries(scope: Omit<ApiScope, 'from' | 'to'> & { boundaries: readonly number[] }): Promise<(ApiTotals & { bucket: number })[]> {
    if (scope.boundaries.length < 2) return [];
    const groups = new Map<number, Tally>();
    for (const r of await this.histogram(scope, scope.boundaries, scope.filters, null)) {
      const g = Number(r.g);
      let tally = groups.get(g);
      if (!tally) groups.set(g, (tally = new Tally()));
      tally.add(r);
    }
    return [...groups].sort(([a], [b]) => a - b).map(([bucket, tally]) => ({ bucket, ...tally.totals() }));
  }

  async apiBreakdown(scope: ApiScope, dim: ApiBreakdownDim, limit: number): Promise<ApiBreakdownRow[]> {
    if (scope.to <= scope.from) return [];
    const names = new Map<string, Tally>();
    for (const r of await this.histogram(scope, [scope.from, scope.to], scope.filters, BREAKDOWN_DIMS[dim])) {
      const name = String(r.name ?? '');
      // Requests without a consumer have no label: left out, as empty labels are in the web breakdowns.
      if (name === '') continue;
      let tally = names.get(name);
      if (!tally) names.set(name, (tally = new Tally()));
      tally.add(r);
    }
    return [...names]
      .map(([name, tally]) => ({ name, tally }))
      .sort((a, b) => b.tally.requests - a.tally.requests || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, limit)
      .map(({ name, tally }) => {
        const t = tally.totals();
        return { name, requests: t.requests, server_errors: t.server_errors, p50_ms: t.p50_ms, p95_ms: t.p95_ms };
      });
  }

  async apiDays(sites: readonly SiteRef[], plan: { boundaries: readonly number[]; days: readonly string[] }): Promise<Map<string, ApiDay[]>> {
    const out = new Map<string, ApiDay[]>();
    await Promise.all(
      sites.map(async (ref) => {
        const series = await this.apiSeries({ ...ref, boundaries: plan.boundaries, filters: [] });
        const days = series.filter((s) => s.requests > 0).map((s) => ({ day: plan.days[s.bucket] as string, requests: s.requests, server_errors: s.server_errors }));
        out.set(ref.site, days);
      }),
    );
    return out;

  }
}
