/**
 * The export's page read (issue 42), one text for both dialects: the series'
 * allow-listed columns (domain/export/columns.ts) of one site's registration
 * in a time window, after a (ts, id) cursor, in (ts, id) order. The select
 * names only those columns, so no other stored column (the visitor hash
 * first) is ever read for an export. ClickHouse reads FINAL: a row stored
 * twice before its parts merged is one row, as the writer meant it.
 */
import { EXPORT_COLUMNS, type ExportSeries } from '#domain/export/columns.ts';
import type { ExportRow } from '#domain/export/encode.ts';
import type { PageRequest } from '#domain/export/pages.ts';
import type { SiteRef } from '#ports/report-store.ts';
import type { RowExportStore } from '#ports/row-export.ts';

type Dialect = 'duckdb' | 'clickhouse';

const PARAMS: Record<Dialect, (name: string, type: 'String' | 'Int64') => string> = {
  duckdb: (name) => `$${name}`,
  clickhouse: (name, type) => `{${name}:${type}}`,
};

const SELECTS: Readonly<Record<ExportSeries, string>> = {
  events: EXPORT_COLUMNS.events.map((c) => `"${c.stored}"`).join(', '),
  api: EXPORT_COLUMNS.api.map((c) => `"${c.stored}"`).join(', '),
};

/** The rows of the series of one site's registration in [from, to), in a dialect, over `table` (as a read names it). */
function scoped(dialect: Dialect, table: string, site: SiteRef, range: { from: number; to: number }): { from: string; params: Record<string, string | number> } {
  const p = PARAMS[dialect];
  return {
    from: `FROM ${table}${dialect === 'clickhouse' ? ' FINAL' : ''}
    WHERE site = ${p('site', 'String')} AND registration = ${p('registration', 'String')} AND ts >= ${p('from', 'Int64')} AND ts < ${p('to', 'Int64')}`,
    params: { site: site.site, registration: site.registration, from: Math.trunc(range.from), to: Math.trunc(range.to) },
  };
}

/** The page statement and its parameters. */
export function exportPageSql(dialect: Dialect, table: string, series: ExportSeries, site: SiteRef, page: PageRequest): { sql: string; params: Record<string, string | number> } {
  const p = PARAMS[dialect];
  const { from, params } = scoped(dialect, table, site, page);
  const cursor = page.after ? ` AND (ts > ${p('after_ts', 'Int64')} OR (ts = ${p('after_ts', 'Int64')} AND id > ${p('after_id', 'String')}))` : '';
  if (page.after) Object.assign(params, { after_ts: Math.trunc(page.after.ts), after_id: page.after.id });
  return { sql: `SELECT ${SELECTS[series]} ${from}${cursor} ORDER BY ts, id LIMIT ${Math.max(1, Math.trunc(page.limit))}`, params };
}

/** The count statement of the rows exportPage walks in [from, to), and its parameters. */
export function exportCountSql(dialect: Dialect, table: string, site: SiteRef, range: { from: number; to: number }): { sql: string; params: Record<string, string | number> } {
  const { from, params } = scoped(dialect, table, site, range);
  return { sql: `SELECT count(*) AS n ${from}`, params };
}

/** The port over a dialect's tables; adapters give the tables and run the statement. */
export abstract class SqlRowExport implements RowExportStore {
  protected abstract readonly dialect: Dialect;
  /** The table of each series as a read names it (ClickHouse: with its database). */
  protected abstract readonly tables: Readonly<Record<ExportSeries, string>>;
  protected abstract run(sql: string, params: Record<string, string | number>): Promise<Record<string, unknown>[]>;

  exportPage(series: ExportSeries, site: SiteRef, page: PageRequest): Promise<ExportRow[]> {
    const { sql, params } = exportPageSql(this.dialect, this.tables[series], series, site, page);
    return this.run(sql, params);
  }

  async exportCount(series: ExportSeries, site: SiteRef, range: { from: number; to: number }): Promise<number> {
    const { sql, params } = exportCountSql(this.dialect, this.tables[series], site, range);
    const [row] = await this.run(sql, params);
    return Number(row?.n ?? 0);
  }
}
