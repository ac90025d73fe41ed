/**
 * The crawler hits' table and reads (issue 41), one text for both dialects:
 * DuckDB keeps the key as its primary key and replaces on conflict;
 * ClickHouse keeps a ReplacingMergeTree by the key (the latest save wins) and
 * reads it FINAL. The reads differ only in their parameter syntax and names.
 */
import type { CrawlerCategory } from '#domain/crawlers/known-crawlers.ts';
import type { CrawlerDim, CrawlerHitStore, CrawlerHitRow, CrawlerHour, CrawlerRow, CrawlerScope } from '#ports/crawler-hits.ts';

type Dialect = 'duckdb' | 'clickhouse';

const PARAMS: Record<Dialect, (name: string, type: 'String' | 'Int64') => string> = {
  duckdb: (name) => `$${name}`,
  clickhouse: (name, type) => `{${name}:${type}}`,
};

const FUNCTIONS: Record<Dialect, { argMax: string; final: string }> = {
  duckdb: { argMax: 'arg_max', final: '' },
  clickhouse: { argMax: 'argMax', final: ' FINAL' },
};

type Raw = Record<string, unknown>;

/** The SQL reads of the port over a dialect's table; adapters run them and save rows their own way. */
export abstract class SqlCrawlerHits implements CrawlerHitStore {
  protected abstract readonly dialect: Dialect;
  /** The table as a read names it (ClickHouse: with its database). */
  protected abstract readonly table: string;
  protected abstract run(sql: string, params: Record<string, string | number>): Promise<Raw[]>;
  abstract saveCrawlerHits(rows: readonly CrawlerHitRow[]): Promise<void>;

  private scoped(scope: CrawlerScope): { from: string; params: Record<string, string | number> } {
    const p = PARAMS[this.dialect];
    return {
      from: `FROM ${this.table}${FUNCTIONS[this.dialect].final}
        WHERE site = ${p('site', 'String')} AND registration = ${p('registration', 'String')} AND hour >= ${p('from', 'Int64')} AND hour < ${p('to', 'Int64')}`,
      params: { site: scope.site, registration: scope.registration, from: Math.trunc(scope.from), to: Math.trunc(scope.to) },
    };
  }

  async crawlerRows(scope: CrawlerScope, dim: CrawlerDim, limit: number): Promise<CrawlerRow[]> {
    const { from, params } = this.scoped(scope);
    const n = Math.max(1, Math.trunc(limit));
    const sql =
      dim === 'pages'
        ? `SELECT path AS name, ${FUNCTIONS[this.dialect].argMax}(category, h) AS category, sum(h) AS hits, 1 AS pages
           FROM (SELECT path, category, sum(hits) AS h ${from} GROUP BY path, category) GROUP BY path`
        : `SELECT ${dim === 'crawlers' ? 'crawler' : 'category'} AS name, category, sum(hits) AS hits, count(DISTINCT path) AS pages
           ${from} GROUP BY ${dim === 'crawlers' ? 'crawler, ' : ''}category`;
    const rows = await this.run(`${sql} ORDER BY hits DESC, name LIMIT ${n}`, params);
    return rows.map((r) => ({ name: String(r.name), category: r.category as CrawlerCategory, hits: Number(r.hits), pages: Number(r.pages) }));
  }

  async crawlerHours(scope: CrawlerScope): Promise<CrawlerHour[]> {
    const { from, params } = this.scoped(scope);
    const rows = await this.run(`SELECT hour, category, sum(hits) AS hits ${from} GROUP BY hour, category ORDER BY hour, category`, params);
    return rows.map((r) => ({ hour: Number(r.hour), category: r.category as CrawlerCategory, hits: Number(r.hits) }));
  }
}
