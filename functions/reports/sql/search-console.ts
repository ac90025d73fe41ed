/**
 * Search Console rows over either SQL store: the table, and the statements
 * that read it. Stores add how a statement runs and how rows are replaced
 * (DuckDB: a primary key and INSERT OR REPLACE; ClickHouse: a
 * ReplacingMergeTree read with FINAL).
 */
import type { SiteRef } from '#ports/report-store.ts';
import type { SearchDay, SearchDim, SearchFigures, SearchRange, SearchRow, SearchStatsStore, StoredSearchDim } from '#ports/search-console.ts';

export const SEARCH_TABLE = 'search_console';
const KEY = 'site, registration, dim, date, name';

export const SEARCH_TABLE_DDL = {
  duckdb: `CREATE TABLE IF NOT EXISTS ${SEARCH_TABLE} (site VARCHAR, registration VARCHAR, dim VARCHAR, date VARCHAR, name VARCHAR,
    clicks BIGINT, impressions BIGINT, position DOUBLE, PRIMARY KEY (${KEY}))`,
  clickhouse: (database: string) => `CREATE TABLE IF NOT EXISTS ${database}.${SEARCH_TABLE} (site String, registration String, dim LowCardinality(String), date String,
    name String, clicks UInt64, impressions UInt64, position Float64, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY (${KEY})`,
} as const;

export type SearchDialect = 'duckdb' | 'clickhouse';
export interface SearchAggregate {
  name?: string;
  date?: string;
  sum_clicks: number | bigint | string | null;
  sum_impressions: number | bigint | string | null;
  avg_position: number | null;
}

const PARAM_TYPES: Record<string, string> = { site: 'String', registration: 'String', dim: 'String', from: 'String', to: 'String', limit: 'UInt32' };
const param = (dialect: SearchDialect, name: string) => (dialect === 'duckdb' ? `$${name}` : `{${name}:${PARAM_TYPES[name] ?? 'String'}}`);

/** One aggregate over the range's rows of `dim`, grouped by `by` (none: one row). */
export function searchStatement(dialect: SearchDialect, table: string, by: 'name' | 'date' | null, limited: boolean): string {
  const p = (name: string) => param(dialect, name);
  const from = dialect === 'clickhouse' ? `${table} FINAL` : table;
  const group = by ? `${by}, ` : '';
  return `SELECT ${group}sum(clicks) AS sum_clicks, sum(impressions) AS sum_impressions,
      sum(position * impressions) / nullif(sum(impressions), 0) AS avg_position
    FROM ${from}
    WHERE site = ${p('site')} AND registration = ${p('registration')} AND dim = ${p('dim')} AND date >= ${p('from')} AND date <= ${p('to')}
    ${by ? `GROUP BY ${by}` : ''}
    ${by === 'name' ? 'ORDER BY sum_clicks DESC, sum_impressions DESC, name' : by === 'date' ? 'ORDER BY date' : ''}
    ${limited ? `LIMIT ${p('limit')}` : ''}`;
}

export function figuresOf(r: SearchAggregate | undefined): SearchFigures {
  const clicks = Number(r?.sum_clicks ?? 0);
  const impressions = Number(r?.sum_impressions ?? 0);
  const position = r?.avg_position === null || r?.avg_position === undefined || impressions === 0 ? null : Number(r.avg_position);
  return { clicks, impressions, ctr: impressions > 0 ? clicks / impressions : 0, position };
}

/** The reads of SearchStatsStore over a store's statement runner. */
export abstract class SqlSearchStats implements SearchStatsStore {
  protected abstract readonly dialect: SearchDialect;
  protected abstract readonly table: string;
  abstract saveSearchRows(ref: SiteRef, rows: readonly SearchRow[]): Promise<void>;
  protected abstract run(sql: string, params: Record<string, string | number>): Promise<SearchAggregate[]>;

  private read(range: SearchRange, dim: StoredSearchDim, by: 'name' | 'date' | null, limit?: number): Promise<SearchAggregate[]> {
    const params: Record<string, string | number> = { site: range.site, registration: range.registration, dim, from: range.from, to: range.to };
    if (limit !== undefined) params.limit = limit;
    return this.run(searchStatement(this.dialect, this.table, by, limit !== undefined), params);
  }

  async searchBreakdown(range: SearchRange, dim: SearchDim, limit: number): Promise<(SearchFigures & { name: string })[]> {
    return (await this.read(range, dim, 'name', limit)).map((r) => ({ name: String(r.name), ...figuresOf(r) }));
  }

  async searchTotals(range: SearchRange): Promise<SearchFigures> {
    const [row] = await this.read(range, 'total', null);
    return figuresOf(row);
  }

  async searchDays(range: SearchRange): Promise<SearchDay[]> {
    return (await this.read(range, 'total', 'date')).map((r) => ({ date: String(r.date), clicks: Number(r.sum_clicks ?? 0), impressions: Number(r.sum_impressions ?? 0) }));
  }
}
