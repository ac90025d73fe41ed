/**
 * Report aggregates over the DuckDB `events` table. Every query starts from
 * canonical human pageviews: non-bot pageview rows de-duplicated by id, with
 * their appends joined by original_id for engagement.
 */
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { FILTER_COLUMNS, type FilterClause } from '#domain/reports/filter.ts';
import { BREAKDOWN_COLUMNS, SCREEN_CLASSES, type BreakdownDim } from '#domain/reports/query.ts';
import type { BreakdownRow, Engagement, ReportScope, ReportStore, TrafficRow, TrafficScope } from '#ports/report-store.ts';

export interface SqlRunner {
  query<T = Record<string, unknown>>(sql: string, params?: Record<string, DuckDBValue>): Promise<T[]>;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** Parameters are collected as the SQL is built, so values never enter the SQL text. */
class Params {
  readonly values: Record<string, DuckDBValue> = {};
  private n = 0;
  add(value: DuckDBValue): string {
    const name = `p${this.n++}`;
    this.values[name] = value;
    return `$${name}`;
  }
}

function filterSql(filters: readonly FilterClause[], params: Params): string {
  return filters
    .map((f) => {
      const column = `coalesce(CAST("${FILTER_COLUMNS[f.dim]}" AS VARCHAR), '')`;
      const value = params.add(f.value);
      if (f.op === 'eq') return ` AND ${column} = ${value}`;
      if (f.op === 'neq') return ` AND ${column} <> ${value}`;
      return ` AND contains(${column}, ${value})`;
    })
    .join('');
}

const siteList = (sites: readonly string[], params: Params) => `site IN (SELECT unnest(${params.add(listValue([...sites]))}::VARCHAR[]))`;

/**
 * Canonical pageviews in [from, to) with their label columns, plus engagement:
 * the page's own duration plus its appends' (summed), and the maximum scroll.
 */
function pagesSql(where: string, sites: string, from: string): string {
  return `
    pv AS (
      SELECT site, id, min(ts) AS ts, max(visitor) AS visitor, bool_or(coalesce("unique", false)) AS uniq,
             max(duration) AS own_duration, max(scrolled) AS own_scroll
      FROM events
      WHERE kind = 'pageview' AND NOT bot AND ${where}
      GROUP BY site, id
    ),
    ap AS (
      SELECT site, original_id AS id, sum(duration) AS duration, max(scrolled) AS scrolled
      FROM events
      WHERE kind = 'append' AND ${sites} AND ts >= ${from} AND original_id IS NOT NULL
        AND (site, original_id) IN (SELECT site, id FROM pv)
      GROUP BY site, original_id
    ),
    page AS (
      SELECT pv.*,
             CASE WHEN pv.own_duration IS NULL AND ap.duration IS NULL THEN NULL
                  ELSE coalesce(pv.own_duration, 0) + coalesce(ap.duration, 0) END AS total_duration,
             greatest(pv.own_scroll, ap.scrolled) AS scroll
      FROM pv LEFT JOIN ap ON ap.site = pv.site AND ap.id = pv.id
    )`;
}

/** Distinct daily visitor hashes; pageviews without one count their unique flag. */
const VISITORS = 'count(DISTINCT visitor) + count(*) FILTER (WHERE visitor IS NULL AND uniq)';

function labelExpression(dim: BreakdownDim): string {
  if (dim === 'screens') {
    const cases = SCREEN_CLASSES.filter((c) => Number.isFinite(c.below))
      .map((c) => `WHEN screen_width < ${c.below} THEN '${c.name}'`)
      .join(' ');
    const last = SCREEN_CLASSES[SCREEN_CLASSES.length - 1]!.name;
    return `CASE WHEN screen_width IS NULL OR screen_width <= 0 THEN NULL ${cases} ELSE '${last}' END`;
  }
  return `"${BREAKDOWN_COLUMNS[dim]}"`;
}

/** Pages and referrers keep empty labels (direct traffic); every other list omits them. */
const keepsEmptyLabels = (dim: BreakdownDim) => dim === 'pages' || dim === 'referrers';

export class DuckDbReportStore implements ReportStore {
  constructor(private readonly db: SqlRunner) {}

  async traffic(scope: TrafficScope): Promise<TrafficRow[]> {
    const p = new Params();
    const bounds = scope.boundaries;
    const from = p.add(bounds[0]!);
    const to = p.add(bounds[bounds.length - 1]!);
    const sites = siteList(scope.sites, p);
    const where = `${sites} AND ts >= ${from} AND ts < ${to}${filterSql(scope.filters, p)}`;
    const sql = `
      WITH ${pagesSql(where, sites, from)},
      bounds AS (SELECT unnest(${p.add(listValue([...bounds]))}::BIGINT[]) AS lo, generate_subscripts(${p.add(listValue([...bounds]))}::BIGINT[], 1) - 1 AS i),
      buckets AS (SELECT i, lo, lead(lo) OVER (ORDER BY i) AS hi FROM bounds)
      SELECT site, b.i AS bucket, count(*) AS pageviews, ${VISITORS} AS visitors,
             median(total_duration) FILTER (WHERE total_duration >= 5) AS duration,
             avg(scroll) AS scrolled
      FROM page JOIN buckets b ON page.ts >= b.lo AND page.ts < b.hi
      GROUP BY site, b.i
      ORDER BY site, b.i`;
    const rows = await this.db.query(sql, p.values);
    return rows.map((r) => ({
      site: String(r.site),
      bucket: num(r.bucket),
      pageviews: num(r.pageviews),
      visitors: num(r.visitors),
      duration: numOrNull(r.duration),
      scrolled: numOrNull(r.scrolled),
    }));
  }

  async liveVisitors(sites: readonly string[], since: number): Promise<Map<string, number>> {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT site, count(DISTINCT visitor) AS visitors FROM events
       WHERE ${siteList(sites, p)} AND ts >= ${p.add(since)} AND NOT bot AND kind IN ('pageview', 'event') AND visitor IS NOT NULL
       GROUP BY site`,
      p.values,
    );
    return new Map(rows.map((r) => [String(r.site), num(r.visitors)]));
  }

  async breakdown(scope: ReportScope, dim: BreakdownDim, limit: number): Promise<BreakdownRow[]> {
    if (dim === 'events') return this.eventBreakdown(scope, limit);
    const p = new Params();
    const from = p.add(scope.from);
    const where = `${siteList([scope.site], p)} AND ts >= ${from} AND ts < ${p.add(scope.to)}${filterSql(scope.filters, p)}`;
    const entryOnly = dim === 'entry_pages' ? 'WHERE uniq' : '';
    const keep = keepsEmptyLabels(dim) ? '' : `${entryOnly ? 'AND' : 'WHERE'} coalesce(name, '') <> ''`;
    const sql = `
      WITH pv AS (
        SELECT id, any_value(${labelExpression(dim)}) AS name, max(visitor) AS visitor, bool_or(coalesce("unique", false)) AS uniq
        FROM events WHERE kind = 'pageview' AND NOT bot AND ${where}
        GROUP BY id
      )
      SELECT coalesce(name, '') AS name, count(*) AS value, ${VISITORS} AS visitors
      FROM pv ${entryOnly} ${keep}
      GROUP BY 1 ORDER BY value DESC, name ASC LIMIT ${p.add(limit)}`;
    const rows = await this.db.query(sql, p.values);
    return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors) }));
  }

  private eventScope(scope: ReportScope, p: Params): string {
    return `kind = 'event' AND NOT bot AND ${siteList([scope.site], p)} AND ts >= ${p.add(scope.from)} AND ts < ${p.add(scope.to)}${filterSql(scope.filters, p)}`;
  }

  private async eventBreakdown(scope: ReportScope, limit: number): Promise<BreakdownRow[]> {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT event AS name, count(DISTINCT id) AS value, count(DISTINCT visitor) AS visitors, max(ts) AS last_seen
       FROM events WHERE ${this.eventScope(scope, p)} AND coalesce(event, '') <> ''
       GROUP BY event ORDER BY value DESC, name ASC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map((r) => ({ name: String(r.name), value: num(r.value), visitors: num(r.visitors), last_seen: num(r.last_seen) }));
  }

  async eventTotals(scope: ReportScope): Promise<{ count: number; visitors: number }> {
    const p = new Params();
    const [r] = await this.db.query(
      `SELECT count(DISTINCT id) AS count, count(DISTINCT visitor) AS visitors FROM events WHERE ${this.eventScope(scope, p)} AND coalesce(event, '') <> ''`,
      p.values,
    );
    return { count: num(r?.count), visitors: num(r?.visitors) };
  }

  async livePages(scope: Omit<ReportScope, 'from' | 'to'> & { since: number }, limit: number) {
    const p = new Params();
    const rows = await this.db.query(
      `SELECT path AS name, count(DISTINCT visitor) AS visitors FROM events
       WHERE kind = 'pageview' AND NOT bot AND visitor IS NOT NULL AND ${siteList([scope.site], p)} AND ts >= ${p.add(scope.since)}${filterSql(scope.filters, p)}
       GROUP BY path ORDER BY visitors DESC, name ASC LIMIT ${p.add(limit)}`,
      p.values,
    );
    return rows.map((r) => ({ name: String(r.name ?? ''), visitors: num(r.visitors) }));
  }

  async engagement(scope: ReportScope, durations: readonly number[], scrolls: readonly number[]): Promise<Engagement> {
    const p = new Params();
    const from = p.add(scope.from);
    const sites = siteList([scope.site], p);
    const where = `${sites} AND ts >= ${from} AND ts < ${p.add(scope.to)}${filterSql(scope.filters, p)}`;
    const d = durations.map((s, i) => `count(*) FILTER (WHERE total_duration >= ${Number(s)}) AS d${i}`);
    const s = scrolls.map((pct, i) => `count(*) FILTER (WHERE scroll >= ${Number(pct)}) AS s${i}`);
    const [r] = await this.db.query(
      `WITH ${pagesSql(where, sites, from)}
       SELECT count(*) FILTER (WHERE total_duration IS NOT NULL) AS measured,
              count(*) FILTER (WHERE scroll IS NOT NULL) AS scroll_measured, ${[...d, ...s].join(', ')}
       FROM page`,
      p.values,
    );
    return {
      measured: num(r?.measured),
      scrollMeasured: num(r?.scroll_measured),
      durationAtLeast: Object.fromEntries(durations.map((sec, i) => [sec, num(r?.[`d${i}`])])),
      scrollAtLeast: Object.fromEntries(scrolls.map((pct, i) => [pct, num(r?.[`s${i}`])])),
    };
  }
}
